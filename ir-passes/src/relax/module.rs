//! A Relax module: named global functions, copy-on-write, and the
//! module's external functions.

use std::collections::BTreeMap;

use ir_core::Node;
use ir_core::pass::Module;

use super::expr::{ExternFunc, Function};
use super::sinfo::{FuncStructInfo, StructInfo};

/// The global functions of a program, by name (`cls.f` / `@f`).
pub type RelaxModule = Module<Node<Function>>;

/// A module's external functions by name: `name = R.ExternFunc("symbol")`
/// in a module's class, what `cls.name(...)` then calls. TVM keeps them
/// among an `IRModule`'s functions; here they are the module's data
/// ([`Module::data`]), so that every pass that carries a module along
/// carries them, and passes that look only at Relax functions need not
/// tell the two apart. They are the data a Relax module holds: setting data
/// of another type would drop them.
///
/// ```
/// use ir_passes::relax::{module_externs, parse_module, print_module};
///
/// let text = "\
/// ## from tvm.script import ir as I
/// ## from tvm.script import relax as R
///
/// @I.ir_module
/// class Module:
///     extern_func = R.ExternFunc(\"extern_func\")";
/// let module = parse_module(text).unwrap();
/// assert_eq!(module_externs(&module).count(), 1);
/// assert_eq!(print_module(&module), text);
/// ```
#[derive(Debug, Clone, Default)]
pub struct ExternGlobals(BTreeMap<String, Node<ExternFunc>>);

/// The module's external functions, by name.
pub fn module_externs(module: &RelaxModule) -> impl Iterator<Item = (&str, &Node<ExternFunc>)> {
    module
        .data::<ExternGlobals>()
        .into_iter()
        .flat_map(|g| g.0.iter().map(|(n, f)| (n.as_str(), f)))
}

/// Adds the external function `f` as `name`; an error if a function or an
/// external function of that name is already in the module.
pub fn add_extern(module: &mut RelaxModule, name: &str, f: Node<ExternFunc>) -> Result<(), String> {
    add_externs(module, [(name.to_owned(), f)])
}

/// Adds several external functions at once (the table is copied once, not
/// once per function); an error, and the module unchanged, if a name is
/// already in the module or given twice.
pub fn add_externs(
    module: &mut RelaxModule,
    externs: impl IntoIterator<Item = (String, Node<ExternFunc>)>,
) -> Result<(), String> {
    let mut globals = module.data::<ExternGlobals>().cloned().unwrap_or_default();
    for (name, f) in externs {
        if module.contains(&name) || globals.0.contains_key(&name) {
            return Err(format!("`{name}` is already in the module"));
        }
        globals.0.insert(name, f);
    }
    module.set_data(globals);
    Ok(())
}

/// Whether `name` is one of the module's functions or external functions.
pub fn is_global(module: &RelaxModule, name: &str) -> bool {
    module.contains(name)
        || module
            .data::<ExternGlobals>()
            .is_some_and(|g| g.0.contains_key(name))
}

/// The struct info of a call's target that is an external function: any
/// arguments, an object back, effects possible (TVM's opaque
/// `FuncStructInfo`).
pub fn extern_sinfo() -> StructInfo {
    FuncStructInfo {
        params: None,
        ret: StructInfo::object(),
        pure: false,
    }
    .into()
}

/// Whether `a` and `b` have the same external functions: the same names
/// for the same symbols.
pub fn same_externs(a: &RelaxModule, b: &RelaxModule) -> bool {
    module_externs(a)
        .map(|(n, f)| (n, f.name.as_str()))
        .eq(module_externs(b).map(|(n, f)| (n, f.name.as_str())))
}
