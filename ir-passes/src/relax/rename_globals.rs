//! Renaming global functions: the module's keys and every `cls.f` that
//! names them (what the builder's `finalize` and passes that add functions
//! need).

use ir_core::{Node, Transformed};
use rustc_hash::FxHashMap;

use super::builder::BuilderError;
use super::expr::{Expr, ExprMutator, Function, GlobalVar};
use super::module::{RelaxModule, add_externs, is_global, module_externs};
use super::mutator::{MutatorState, run_mutator};
use super::prim::PrimExprMutator;
use super::sinfo::StructInfoMutator;

/// Replaces references to renamed globals.
struct Rename<'a> {
    state: MutatorState,
    renames: &'a FxHashMap<String, String>,
}

impl PrimExprMutator for Rename<'_> {}
impl StructInfoMutator for Rename<'_> {}
impl ExprMutator for Rename<'_> {
    fn mutator_state(&mut self) -> &mut MutatorState {
        &mut self.state
    }
    fn mutate_global_var(&mut self, g: &Node<GlobalVar>) -> Transformed<Expr> {
        match self.renames.get(&g.name) {
            Some(new) => Transformed::Replace(
                GlobalVar {
                    name: new.clone(),
                    sinfo: g.sinfo.clone(),
                }
                .into(),
            ),
            None => Transformed::Keep,
        }
    }
}

/// `module` with each function (or external function) named in `renames`
/// (old name -> new name) moved to its new name, and every reference to it
/// renamed. The new names must be free in the module, or be themselves
/// renamed away: a clash is an error.
pub fn rename_globals(
    module: &RelaxModule,
    renames: &FxHashMap<String, String>,
) -> Result<RelaxModule, BuilderError> {
    if renames.is_empty() {
        return Ok(module.clone());
    }
    let mut pass = Rename {
        state: MutatorState::default(),
        renames,
    };
    let mut functions: Vec<(String, Node<Function>)> = Vec::with_capacity(module.len());
    for (name, f) in module.functions() {
        let new_name = renames.get(name).map_or(name, String::as_str);
        let f = match run_mutator(&mut pass, &Expr::Function(f.clone()))? {
            Expr::Function(g) => g,
            _ => f.clone(),
        };
        functions.push((new_name.to_owned(), f));
    }
    let mut out = RelaxModule::new();
    let externs = module_externs(module).map(|(name, f)| {
        let new_name = renames.get(name).map_or(name, String::as_str);
        (new_name.to_owned(), f.clone())
    });
    add_externs(&mut out, externs).map_err(|e| BuilderError(format!("renaming globals: {e}")))?;
    for (name, f) in functions {
        if is_global(&out, &name) {
            return Err(BuilderError(format!(
                "renaming globals: `{name}` is already in the module"
            )));
        }
        let _ = out.add_function(&name, f);
    }
    Ok(out)
}
