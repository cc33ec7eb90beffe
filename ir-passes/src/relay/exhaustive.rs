//! Whether the clauses of a `match` cover every value: Maranget's
//! usefulness of a wildcard row, over a pattern matrix whose rows share
//! their tails, so that a wide tuple pattern costs its width once, not once
//! per column (copying rows made a 20,000-field tuple pattern take 1.8 GB).

use ir_core::stack::guarded;

use super::pattern::Pattern;

/// At most this many steps, plus [`BUDGET_PER_PATTERN_NODE`] per node of
/// the match's patterns, decide whether a `match` is exhaustive: the check
/// is linear on patterns as written, exponential on contrived ones, and
/// must not hang. Memory is bounded by the same count.
const EXHAUSTIVENESS_BUDGET: usize = 1_000_000;
const BUDGET_PER_PATTERN_NODE: usize = 16;

/// Whether the patterns (one per clause, in order) cover every value, or
/// `None` when deciding it would take more than the budget.
pub(super) fn exhaustive<'a>(patterns: impl IntoIterator<Item = &'a Pattern>) -> Option<bool> {
    let wild = Pattern::wildcard();
    let mut matrix = Matrix {
        cells: Vec::new(),
        wild: &wild,
        budget: EXHAUSTIVENESS_BUDGET,
    };
    let rows: Vec<usize> = patterns
        .into_iter()
        .map(|p| {
            matrix.budget = matrix
                .budget
                .saturating_add(p.size().saturating_mul(BUDGET_PER_PATTERN_NODE));
            matrix.push(p, END)
        })
        .collect();
    matrix.useful_wildcard_missing(rows).map(|missing| !missing)
}

/// The index of no cell: the end of a row.
const END: usize = usize::MAX;

/// One pattern of a row, and the index of the row's next cell.
#[derive(Clone, Copy)]
struct Cell<'a> {
    pattern: &'a Pattern,
    next: usize,
}

/// Every cell made during one check. A row is the index of its first cell;
/// rows are immutable, so specializing one pushes its new leading cells in
/// front of the old row's tail and shares the rest.
struct Matrix<'a> {
    cells: Vec<Cell<'a>>,
    wild: &'a Pattern,
    /// Steps and cells left.
    budget: usize,
}

impl<'a> Matrix<'a> {
    fn push(&mut self, pattern: &'a Pattern, next: usize) -> usize {
        self.cells.push(Cell { pattern, next });
        self.cells.len() - 1
    }

    fn charge(&mut self, cost: usize) -> Option<()> {
        self.budget = self.budget.checked_sub(cost)?;
        Some(())
    }

    /// Whether some value matches none of `rows` (all of one length), or
    /// `None` past the budget.
    fn useful_wildcard_missing(&mut self, mut rows: Vec<usize>) -> Option<bool> {
        guarded(|| {
            loop {
                self.charge(1 + rows.len())?;
                let Some(&first) = rows.first() else {
                    return Some(true);
                };
                if first == END {
                    return Some(false);
                }
                let heads = || rows.iter().map(|&r| self.cells[r].pattern);
                let head_constructor = heads().find_map(|p| match p {
                    Pattern::PatternConstructor(c) => Some(c.constructor.adt.clone()),
                    _ => None,
                });
                if let Some(adt) = head_constructor {
                    // Values headed by each constructor in turn.
                    for (tag, c) in adt.constructors.iter().enumerate() {
                        let specialized = self.specialize(&rows, Some(tag), c.inputs.len())?;
                        if self.useful_wildcard_missing(specialized)? {
                            return Some(true);
                        }
                    }
                    return Some(false);
                }
                let head_tuple = heads().find_map(|p| match p {
                    Pattern::PatternTuple(t) => Some(t.patterns.len()),
                    _ => None,
                });
                rows = match head_tuple {
                    Some(arity) => self.specialize(&rows, None, arity)?,
                    // Only wildcards and variables: the column says nothing.
                    None => rows.iter().map(|&r| self.cells[r].next).collect(),
                };
            }
        })
    }

    /// The rows that match a value headed by constructor `tag` (or by a
    /// tuple, for `None`) of `arity` fields, with the head replaced by the
    /// fields' patterns.
    fn specialize(
        &mut self,
        rows: &[usize],
        tag: Option<usize>,
        arity: usize,
    ) -> Option<Vec<usize>> {
        let mut out = Vec::with_capacity(rows.len());
        for &r in rows {
            let Cell { pattern, next } = self.cells[r];
            let fields: &[Pattern] = match (pattern, tag) {
                (Pattern::PatternConstructor(c), Some(t)) if c.constructor.tag == t => &c.patterns,
                (Pattern::PatternTuple(p), None) if p.patterns.len() == arity => &p.patterns,
                (Pattern::PatternWildcard(_) | Pattern::PatternVar(_), _) => &[],
                _ => continue,
            };
            self.charge(arity)?;
            let mut row = next;
            for i in (0..arity).rev() {
                let field = fields.get(i).unwrap_or(self.wild);
                row = self.push(field, row);
            }
            out.push(row);
        }
        Some(out)
    }
}
