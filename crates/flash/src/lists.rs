//! Intrusive doubly linked lists of block ids: O(1) insert, remove and move, no allocation
//! after construction. Used for greedy's valid-count buckets (one list per valid count) and
//! for the FIFO order of closed blocks (one list).
//!
//! Invariants: a block is in at most one list of a `BlockLists`; `prev`/`next` of a block
//! not in any list are `NIL`; `len` counts members of each list.

pub const NIL: u32 = u32::MAX;

#[derive(Clone, Debug)]
pub struct BlockLists {
    head: Vec<u32>,
    tail: Vec<u32>,
    len: Vec<u32>,
    prev: Vec<u32>,
    next: Vec<u32>,
    /// Which list a block is in, NIL if none (debug checks and safe removal).
    owner: Vec<u32>,
}

impl BlockLists {
    pub fn new(lists: usize, blocks: usize) -> Self {
        Self {
            head: vec![NIL; lists],
            tail: vec![NIL; lists],
            len: vec![0; lists],
            prev: vec![NIL; blocks],
            next: vec![NIL; blocks],
            owner: vec![NIL; blocks],
        }
    }

    #[inline]
    pub fn push_back(&mut self, list: u32, b: u32) {
        debug_assert_eq!(self.owner[b as usize], NIL);
        let l = list as usize;
        let t = self.tail[l];
        self.prev[b as usize] = t;
        self.next[b as usize] = NIL;
        if t == NIL {
            self.head[l] = b;
        } else {
            self.next[t as usize] = b;
        }
        self.tail[l] = b;
        self.len[l] += 1;
        self.owner[b as usize] = list;
    }

    #[inline]
    pub fn remove(&mut self, b: u32) {
        let l = self.owner[b as usize];
        debug_assert_ne!(l, NIL);
        let l = l as usize;
        let (p, n) = (self.prev[b as usize], self.next[b as usize]);
        if p == NIL {
            self.head[l] = n;
        } else {
            self.next[p as usize] = n;
        }
        if n == NIL {
            self.tail[l] = p;
        } else {
            self.prev[n as usize] = p;
        }
        self.prev[b as usize] = NIL;
        self.next[b as usize] = NIL;
        self.owner[b as usize] = NIL;
        self.len[l] -= 1;
    }

    #[inline]
    pub fn move_to(&mut self, b: u32, list: u32) {
        self.remove(b);
        self.push_back(list, b);
    }

    #[inline]
    pub fn head(&self, list: u32) -> u32 {
        self.head[list as usize]
    }
    #[inline]
    pub fn next(&self, b: u32) -> u32 {
        self.next[b as usize]
    }
    #[inline]
    pub fn len(&self, list: u32) -> u32 {
        self.len[list as usize]
    }
    #[inline]
    pub fn is_empty(&self, list: u32) -> bool {
        self.len[list as usize] == 0
    }
    #[inline]
    pub fn owner(&self, b: u32) -> u32 {
        self.owner[b as usize]
    }
    pub fn lists(&self) -> usize {
        self.head.len()
    }
    /// Members of one list, head to tail (tests and invariant checks).
    pub fn iter(&self, list: u32) -> impl Iterator<Item = u32> + '_ {
        let mut cur = self.head[list as usize];
        std::iter::from_fn(move || {
            if cur == NIL {
                None
            } else {
                let b = cur;
                cur = self.next[b as usize];
                Some(b)
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_remove_move_keep_order() {
        let mut l = BlockLists::new(2, 5);
        for b in 0..5 {
            l.push_back(0, b);
        }
        l.remove(2);
        l.move_to(0, 1);
        assert_eq!(l.iter(0).collect::<Vec<_>>(), vec![1, 3, 4]);
        assert_eq!(l.iter(1).collect::<Vec<_>>(), vec![0]);
        assert_eq!((l.len(0), l.len(1)), (3, 1));
        l.remove(4);
        l.remove(1);
        l.remove(3);
        assert!(l.is_empty(0));
        assert_eq!(l.head(0), NIL);
    }
}
