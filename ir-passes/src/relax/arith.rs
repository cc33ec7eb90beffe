//! A small arithmetic simplifier for symbolic shapes: expressions are turned
//! into polynomials with integer coefficients over atoms (symbolic variables,
//! and divisions, remainders, minima and maxima it cannot resolve), which
//! decides equalities such as `n + 1 - 1 == n` and `2 * n == n + n`.
//!
//! It is conservative, as TVM's `CanProveShapeEqual` must be: `can_prove_equal`
//! never says yes to two values that can differ. Overflow makes it give up.

use std::collections::BTreeMap;

use ir_core::{Id, Node, stack};
use rustc_hash::FxHashMap;

use super::prim::{BinOp, PrimExpr, PrimVar};

/// An atom: its position in order of first appearance, so that printed
/// forms keep the order the expression had (`n * m`, `n + p`).
type AtomKey = usize;

/// Monomials (sorted atom lists; empty for the constant) to coefficients.
#[derive(Clone, Default, PartialEq, Debug)]
struct Poly {
    terms: BTreeMap<Vec<AtomKey>, i64>,
}

/// Atoms met so far, to rebuild expressions from polynomials: a symbolic
/// variable by node, anything else by its simplified form over those.
#[derive(Default)]
struct Atoms {
    exprs: Vec<PrimExpr>,
    index: FxHashMap<Atom, AtomKey>,
}

/// What an atom stands for.
#[derive(PartialEq, Eq, Hash)]
enum Atom {
    /// A symbolic variable, by node.
    Var(Id<Node<PrimVar>>),
    /// An operation left unresolved, by its simplified form.
    Opaque(String),
}

/// Beyond this many terms a product is kept as an atom, so that simplifying
/// stays linear in the expression's size.
const MAX_TERMS: usize = 64;

impl Poly {
    fn constant(c: i64) -> Poly {
        let mut terms = BTreeMap::new();
        if c != 0 {
            terms.insert(Vec::new(), c);
        }
        Poly { terms }
    }

    fn atom(key: AtomKey) -> Poly {
        Poly {
            terms: BTreeMap::from([(vec![key], 1)]),
        }
    }

    fn as_constant(&self) -> Option<i64> {
        match self.terms.len() {
            0 => Some(0),
            1 => self.terms.get(&Vec::new()).copied(),
            _ => None,
        }
    }

    fn add(mut self, other: &Poly, sign: i64) -> Option<Poly> {
        for (mono, c) in &other.terms {
            let entry = self.terms.entry(mono.clone()).or_insert(0);
            *entry = entry.checked_add(c.checked_mul(sign)?)?;
            if *entry == 0 {
                self.terms.remove(mono);
            }
        }
        Some(self)
    }

    fn mul(&self, other: &Poly) -> Option<Poly> {
        if self.terms.len() * other.terms.len() > MAX_TERMS {
            return None;
        }
        let mut out = Poly::default();
        for (m1, c1) in &self.terms {
            for (m2, c2) in &other.terms {
                let mut mono: Vec<AtomKey> = m1.iter().chain(m2).copied().collect();
                mono.sort();
                let term = Poly {
                    terms: BTreeMap::from([(mono, c1.checked_mul(*c2)?)]),
                };
                out = out.add(&term, 1)?;
            }
        }
        Some(out)
    }

    /// Divides by a one-term polynomial `c * atoms` (c > 0) when every term
    /// is a multiple of it.
    fn exact_div_monomial(&self, divisor: &Poly) -> Option<Poly> {
        let [(atoms, &c)] = divisor.terms.iter().collect::<Vec<_>>()[..] else {
            return None;
        };
        if c <= 0 || atoms.is_empty() {
            return None;
        }
        let mut out = Poly::default();
        for (mono, k) in &self.terms {
            if k.checked_rem(c)? != 0 {
                return None;
            }
            let mut rest = mono.clone();
            for a in atoms {
                let at = rest.iter().position(|x| x == a)?;
                rest.remove(at);
            }
            out.terms.insert(rest, k.checked_div(c)?);
        }
        Some(out)
    }

    /// Divides every coefficient by `c`, if each is a multiple of it.
    fn exact_div(&self, c: i64) -> Option<Poly> {
        let mut out = Poly::default();
        for (mono, k) in &self.terms {
            // Checked: `i64::MIN / -1` overflows.
            if k.checked_rem(c)? != 0 {
                return None;
            }
            out.terms.insert(mono.clone(), k.checked_div(c)?);
        }
        Some(out)
    }
}

fn floor_div(a: i64, b: i64) -> Option<i64> {
    if b == 0 {
        return None;
    }
    let q = a.checked_div(b)?;
    Some(if (a % b != 0) && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    })
}

fn floor_mod(a: i64, b: i64) -> Option<i64> {
    a.checked_sub(floor_div(a, b)?.checked_mul(b)?)
}

impl Atoms {
    /// The polynomial of `e`, or `None` on overflow.
    fn poly(&mut self, e: &PrimExpr) -> Option<Poly> {
        stack::guarded(|| match e {
            PrimExpr::IntImm(n) => Some(Poly::constant(n.value)),
            PrimExpr::PrimVar(v) => Some(Poly::atom(self.intern(Atom::Var(v.id()), e))),
            _ => {
                let (op, a, b) = e.as_binary_parts()?;
                let (pa, pb) = (self.poly(a)?, self.poly(b)?);
                match op {
                    BinOp::Add => pa.add(&pb, 1),
                    BinOp::Sub => pa.add(&pb, -1),
                    BinOp::Mul => match pa.mul(&pb) {
                        Some(p) => Some(p),
                        None => Some(self.opaque(op, &pa, &pb)),
                    },
                    BinOp::FloorDiv | BinOp::FloorMod => {
                        match (pa.as_constant(), pb.as_constant()) {
                            (Some(x), Some(y)) if y != 0 => {
                                let v = if op == BinOp::FloorDiv {
                                    floor_div(x, y)?
                                } else {
                                    floor_mod(x, y)?
                                };
                                Some(Poly::constant(v))
                            }
                            (_, Some(y)) if y != 0 => match pa.exact_div(y) {
                                // `(c * k) // c == k` and `(c * k) % c == 0`.
                                Some(q) if op == BinOp::FloorDiv => Some(q),
                                Some(_) => Some(Poly::default()),
                                None => Some(self.opaque(op, &pa, &pb)),
                            },
                            // `(b * n * m) // m == b * n`, for a positive
                            // monomial divisor (shape extents are positive).
                            _ => match pa.exact_div_monomial(&pb) {
                                Some(q) if op == BinOp::FloorDiv => Some(q),
                                Some(_) => Some(Poly::default()),
                                None => Some(self.opaque(op, &pa, &pb)),
                            },
                        }
                    }
                    BinOp::Min | BinOp::Max => {
                        let diff = pa.clone().add(&pb, -1)?;
                        match diff.as_constant() {
                            Some(d) => {
                                let a_wins = (d <= 0) == (op == BinOp::Min);
                                Some(if a_wins { pa } else { pb })
                            }
                            None => Some(self.opaque(op, &pa, &pb)),
                        }
                    }
                }
            }
        })
    }

    /// An atom standing for `op(a, b)` over the simplified operands.
    fn opaque(&mut self, op: BinOp, a: &Poly, b: &Poly) -> Poly {
        let (ea, eb) = (self.expr(a), self.expr(b));
        let expr = PrimExpr::binary(op, ea, eb);
        let key = format!("({op:?} {} {})", key_of(a), key_of(b));
        Poly::atom(self.intern(Atom::Opaque(key), &expr))
    }

    fn intern(&mut self, identity: Atom, e: &PrimExpr) -> AtomKey {
        let next = self.exprs.len();
        let key = *self.index.entry(identity).or_insert(next);
        if key == next {
            self.exprs.push(e.clone());
        }
        key
    }

    /// The expression of a polynomial: higher-degree terms first, then by
    /// atom, the constant last; negative terms subtract.
    fn expr(&self, p: &Poly) -> PrimExpr {
        let mut terms: Vec<(&Vec<AtomKey>, i64)> = p.terms.iter().map(|(m, c)| (m, *c)).collect();
        terms.sort_by(|(m1, _), (m2, _)| m2.len().cmp(&m1.len()).then(m1.cmp(m2)));
        let mut out: Option<PrimExpr> = None;
        for (mono, c) in terms {
            let magnitude = c.unsigned_abs();
            let mut term: Option<PrimExpr> = None;
            for key in mono {
                let atom = self.exprs[*key].clone();
                term = Some(match term {
                    None => atom,
                    Some(t) => PrimExpr::binary(BinOp::Mul, t, atom),
                });
            }
            let term = match (term, magnitude) {
                (None, _) => PrimExpr::int(magnitude as i64),
                (Some(t), 1) => t,
                (Some(t), m) => PrimExpr::binary(BinOp::Mul, t, PrimExpr::int(m as i64)),
            };
            out = Some(match (out, c < 0) {
                (None, false) => term,
                (None, true) => match term.as_int() {
                    Some(v) if v != i64::MIN => PrimExpr::int(-v),
                    _ => PrimExpr::binary(BinOp::Mul, term, PrimExpr::int(-1)),
                },
                (Some(acc), false) => PrimExpr::binary(BinOp::Add, acc, term),
                (Some(acc), true) => PrimExpr::binary(BinOp::Sub, acc, term),
            });
        }
        out.unwrap_or_else(|| PrimExpr::int(0))
    }
}

fn key_of(p: &Poly) -> String {
    format!("{:?}", p.terms)
}

/// `e` in a canonical form: like terms collected, constants folded,
/// `(2 * n) // 2` resolved; `e` itself when it cannot be represented.
pub fn simplify(e: &PrimExpr) -> PrimExpr {
    let mut atoms = Atoms::default();
    match atoms.poly(e) {
        Some(p) => atoms.expr(&p),
        None => e.clone(),
    }
}

/// Whether `a == b` holds for every value of the symbolic variables.
/// Conservative: `false` means "could not prove", not "different".
///
/// ```
/// use ir_passes::relax::{PrimExpr, can_prove_equal};
/// use ir_passes::relax::BinOp::{Add, Mul, Sub};
///
/// let n = PrimExpr::from(PrimExpr::var("n"));
/// let n_plus_1_minus_1 = PrimExpr::binary(Sub, PrimExpr::binary(Add, n.clone(), 1.into()), 1.into());
/// assert!(can_prove_equal(&n_plus_1_minus_1, &n));
/// let twice = PrimExpr::binary(Mul, 2.into(), n.clone());
/// assert!(can_prove_equal(&twice, &PrimExpr::binary(Add, n.clone(), n.clone())));
/// assert!(!can_prove_equal(&twice, &n));
/// ```
pub fn can_prove_equal(a: &PrimExpr, b: &PrimExpr) -> bool {
    let mut atoms = Atoms::default();
    match (atoms.poly(a), atoms.poly(b)) {
        (Some(pa), Some(pb)) => pa.add(&pb, -1).is_some_and(|d| d.terms.is_empty()),
        _ => false,
    }
}

/// The value of `e` if it simplifies to a constant.
pub fn const_value(e: &PrimExpr) -> Option<i64> {
    Atoms::default().poly(e)?.as_constant()
}
