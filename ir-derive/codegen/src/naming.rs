//! Names of generated items.

/// `TupleGetItem` -> `tuple_get_item`, `IfElse` -> `if_else`, `HTTPCall` -> `http_call`.
pub fn snake_case(name: &str) -> String {
    let name = name.strip_prefix("r#").unwrap_or(name);
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if c.is_uppercase() {
            let prev_lower =
                i > 0 && (chars[i - 1].is_lowercase() || chars[i - 1].is_ascii_digit());
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            let prev_upper = i > 0 && chars[i - 1].is_uppercase();
            if i > 0 && (prev_lower || (prev_upper && next_lower)) && !out.ends_with('_') {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::snake_case;

    #[test]
    fn converts_kind_names() {
        assert_eq!(snake_case("TupleGetItem"), "tuple_get_item");
        assert_eq!(snake_case("Call"), "call");
        assert_eq!(snake_case("IfElse"), "if_else");
        assert_eq!(snake_case("HTTPCall"), "http_call");
        assert_eq!(snake_case("Var2D"), "var2_d");
        assert_eq!(snake_case("For_Loop"), "for_loop");
    }
}
