//! [`ShortVec`]: a list of children that keeps up to two in place.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::{Deref, DerefMut};

/// A list that stores up to two items in place and more on the heap: a
/// call's arguments without an allocation of their own, in the common case.
///
/// Most calls in a compiler IR take one or two arguments. As a `Vec`, each
/// call's arguments cost an allocation (and a free when the call goes) and
/// 24 bytes in the node. A `ShortVec` of a family enum whose tag has spare
/// values (every derived family) is 32 bytes, holds two children in place,
/// and dereferences to a slice like a `Vec`. It is a child container like
/// `Vec`: derived visitors, mutators and structural equality go through it.
///
/// ```
/// use ir_core::ShortVec;
///
/// let mut args: ShortVec<u32> = [1, 2].into();
/// assert_eq!(&args[..], &[1, 2]);
/// assert!(args.is_inline());
/// args.push(3); // a third item moves the list to the heap
/// assert!(!args.is_inline());
/// assert_eq!(args.iter().sum::<u32>(), 6);
/// let collected: ShortVec<u32> = (0..2).collect();
/// assert!(collected.is_inline());
/// ```
#[derive(Clone)]
pub struct ShortVec<T>(Repr<T>);

// Each inline size is an array, so the items are contiguous and the list
// dereferences to a slice without copying.
#[derive(Clone)]
enum Repr<T> {
    Zero,
    One([T; 1]),
    Two([T; 2]),
    Heap(Vec<T>),
}

impl<T> ShortVec<T> {
    /// An empty list (no allocation).
    pub const fn new() -> Self {
        ShortVec(Repr::Zero)
    }

    /// One item, in place.
    pub(crate) const fn one(a: T) -> Self {
        ShortVec(Repr::One([a]))
    }

    /// Two items, in place.
    pub(crate) const fn two(a: T, b: T) -> Self {
        ShortVec(Repr::Two([a, b]))
    }

    /// An empty list with room for `n` items: in place for two or fewer.
    pub fn with_capacity(n: usize) -> Self {
        if n <= 2 {
            Self::new()
        } else {
            ShortVec(Repr::Heap(Vec::with_capacity(n)))
        }
    }

    /// Whether the items are stored in place (two or fewer, never spilled).
    pub fn is_inline(&self) -> bool {
        !matches!(self.0, Repr::Heap(_))
    }

    /// The items.
    pub fn as_slice(&self) -> &[T] {
        match &self.0 {
            Repr::Zero => &[],
            Repr::One(a) => a,
            Repr::Two(a) => a,
            Repr::Heap(v) => v,
        }
    }

    /// The items, mutably.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        match &mut self.0 {
            Repr::Zero => &mut [],
            Repr::One(a) => a,
            Repr::Two(a) => a,
            Repr::Heap(v) => v,
        }
    }

    /// Appends `item`; a third item moves the list to the heap.
    pub fn push(&mut self, item: T) {
        if let Repr::Heap(v) = &mut self.0 {
            return v.push(item);
        }
        self.0 = match std::mem::replace(&mut self.0, Repr::Zero) {
            Repr::Zero => Repr::One([item]),
            Repr::One([a]) => Repr::Two([a, item]),
            Repr::Two([a, b]) => {
                let mut v = Vec::with_capacity(4);
                v.extend([a, b, item]);
                Repr::Heap(v)
            }
            Repr::Heap(mut v) => {
                v.push(item);
                Repr::Heap(v)
            }
        };
    }

    /// Removes and returns the last item.
    pub fn pop(&mut self) -> Option<T> {
        if let Repr::Heap(v) = &mut self.0 {
            return v.pop();
        }
        let (rest, last) = match std::mem::replace(&mut self.0, Repr::Zero) {
            Repr::Zero => (Repr::Zero, None),
            Repr::One([a]) => (Repr::Zero, Some(a)),
            Repr::Two([a, b]) => (Repr::One([a]), Some(b)),
            Repr::Heap(mut v) => {
                let last = v.pop();
                (Repr::Heap(v), last)
            }
        };
        self.0 = rest;
        last
    }

    /// Inserts `item` at `index`, shifting later items right.
    ///
    /// # Panics
    /// If `index > len`, as `Vec::insert` does.
    pub fn insert(&mut self, index: usize, item: T) {
        assert!(index <= self.len(), "insertion index {index} past the end");
        self.push(item);
        self.as_mut_slice()[index..].rotate_right(1);
    }

    /// Removes and returns the item at `index`, shifting later items left.
    ///
    /// # Panics
    /// If `index >= len`, as `Vec::remove` does.
    pub fn remove(&mut self, index: usize) -> T {
        assert!(index < self.len(), "removal index {index} past the end");
        self.as_mut_slice()[index..].rotate_left(1);
        self.pop().expect("not empty: checked above")
    }

    /// Shortens the list to `len` items (no effect if it is not longer).
    pub fn truncate(&mut self, len: usize) {
        if let Repr::Heap(v) = &mut self.0 {
            return v.truncate(len);
        }
        while self.len() > len {
            self.pop();
        }
    }

    /// Removes every item, and frees a heap buffer (unlike `Vec::clear`).
    pub fn clear(&mut self) {
        self.0 = Repr::Zero;
    }

    /// The items as a `Vec` (allocates unless they already are on the heap).
    pub fn into_vec(self) -> Vec<T> {
        match self.0 {
            Repr::Zero => Vec::new(),
            Repr::One(a) => Vec::from(a),
            Repr::Two(a) => Vec::from(a),
            Repr::Heap(v) => v,
        }
    }
}

impl<T> Default for ShortVec<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Deref for ShortVec<T> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T> DerefMut for ShortVec<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        self.as_mut_slice()
    }
}

impl<T> AsRef<[T]> for ShortVec<T> {
    fn as_ref(&self) -> &[T] {
        self
    }
}

impl<T: fmt::Debug> fmt::Debug for ShortVec<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: PartialEq> PartialEq for ShortVec<T> {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: Eq> Eq for ShortVec<T> {}

impl<T: Hash> Hash for ShortVec<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state)
    }
}

impl<T> From<Vec<T>> for ShortVec<T> {
    /// Two or fewer items move in place (and the vector is freed).
    fn from(v: Vec<T>) -> Self {
        if v.len() <= 2 {
            v.into_iter().collect()
        } else {
            ShortVec(Repr::Heap(v))
        }
    }
}

impl<T, const N: usize> From<[T; N]> for ShortVec<T> {
    /// The representation is chosen from `N` at compile time: no pushes.
    fn from(items: [T; N]) -> Self {
        if N > 2 {
            return ShortVec(Repr::Heap(Vec::from(items)));
        }
        let mut items = items.into_iter();
        let mut next = || items.next().expect("N items");
        match N {
            0 => Self::new(),
            1 => Self::one(next()),
            _ => {
                let a = next();
                Self::two(a, next())
            }
        }
    }
}

impl<T: Clone> From<&[T]> for ShortVec<T> {
    fn from(items: &[T]) -> Self {
        items.iter().cloned().collect()
    }
}

impl<T> FromIterator<T> for ShortVec<T> {
    fn from_iter<I: IntoIterator<Item = T>>(items: I) -> Self {
        let mut items = items.into_iter();
        let mut out = Self::with_capacity(items.size_hint().0);
        if let Repr::Heap(v) = &mut out.0 {
            v.extend(items);
            return out;
        }
        // At most two expected: take them one by one, and the rest in bulk.
        while out.len() < 2 {
            match items.next() {
                Some(x) => out.push(x),
                None => return out,
            }
        }
        out.extend(items);
        out
    }
}

impl<T> Extend<T> for ShortVec<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, items: I) {
        let mut items = items.into_iter();
        while self.is_inline() {
            match items.next() {
                Some(x) => self.push(x),
                None => return,
            }
        }
        if let Repr::Heap(v) = &mut self.0 {
            v.extend(items);
        }
    }
}

impl<'a, T> IntoIterator for &'a ShortVec<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a, T> IntoIterator for &'a mut ShortVec<T> {
    type Item = &'a mut T;
    type IntoIter = std::slice::IterMut<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

impl<T> IntoIterator for ShortVec<T> {
    type Item = T;
    type IntoIter = IntoIter<T>;
    fn into_iter(self) -> IntoIter<T> {
        IntoIter(match self.0 {
            Repr::Zero => IterRepr::Inline(None.into_iter().chain(None)),
            Repr::One([a]) => IterRepr::Inline(Some(a).into_iter().chain(None)),
            Repr::Two([a, b]) => IterRepr::Inline(Some(a).into_iter().chain(Some(b))),
            Repr::Heap(v) => IterRepr::Heap(v.into_iter()),
        })
    }
}

/// The items of a [`ShortVec`], by value (no allocation for inline lists).
pub struct IntoIter<T>(IterRepr<T>);

enum IterRepr<T> {
    Inline(std::iter::Chain<std::option::IntoIter<T>, std::option::IntoIter<T>>),
    Heap(std::vec::IntoIter<T>),
}

impl<T> Iterator for IntoIter<T> {
    type Item = T;
    fn next(&mut self) -> Option<T> {
        match &mut self.0 {
            IterRepr::Inline(it) => it.next(),
            IterRepr::Heap(it) => it.next(),
        }
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.0 {
            IterRepr::Inline(it) => it.size_hint(),
            IterRepr::Heap(it) => it.size_hint(),
        }
    }
}

impl<T> DoubleEndedIterator for IntoIter<T> {
    fn next_back(&mut self) -> Option<T> {
        match &mut self.0 {
            IterRepr::Inline(it) => it.next_back(),
            IterRepr::Heap(it) => it.next_back(),
        }
    }
}

impl<T> ExactSizeIterator for IntoIter<T> {}

impl<T> std::iter::FusedIterator for IntoIter<T> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_stay_in_order_through_every_representation() {
        let mut v = ShortVec::new();
        for i in 0..5 {
            v.push(i);
            assert_eq!(v.as_slice(), (0..=i).collect::<Vec<_>>().as_slice());
        }
        v.insert(1, 10);
        assert_eq!(&v[..], &[0, 10, 1, 2, 3, 4]);
        assert_eq!(v.remove(0), 0);
        v.truncate(2);
        assert_eq!(&v[..], &[10, 1]);
        assert_eq!(v.clone().into_iter().rev().collect::<Vec<_>>(), [1, 10]);
        assert_eq!(v.pop(), Some(1));
        assert_eq!(v.pop(), Some(10));
        assert_eq!(v.pop(), None);
        let mut two: ShortVec<i32> = [7, 8].into();
        two.insert(0, 6);
        assert_eq!(two.into_vec(), [6, 7, 8]);
        let one: ShortVec<i32> = vec![5].into();
        assert!(one.is_inline());
        assert_eq!(one.into_iter().collect::<Vec<_>>(), [5]);
    }

    #[test]
    fn two_handles_fit_in_the_space_of_two() {
        // Enums of handles leave spare tag values, so the list needs no tag.
        #[allow(dead_code)]
        enum Family {
            A(Box<u8>),
            B(Box<u16>),
        }
        assert_eq!(size_of::<Family>(), 16);
        assert_eq!(size_of::<ShortVec<Family>>(), 32);
    }
}
