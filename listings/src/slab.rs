//! Chapter 11: values in numbered slots, a freed number reused — the
//! runtime's list of live tasks and the reactor's descriptors. Numbers
//! stay small and dense, so the vector grows only to the most values
//! alive at once, and finding a value by its number is an index.

/// Values in slots numbered from 0.
#[derive(Debug)]
pub struct Slab<T> {
    slots: Vec<Slot<T>>,
    /// The first free slot (the free slots form a list through `Free`);
    /// `slots.len()` when none is free.
    free: usize,
    len: usize,
}

#[derive(Debug)]
enum Slot<T> {
    Taken(T),
    Free { next: usize },
}

impl<T> Default for Slab<T> {
    fn default() -> Self {
        Slab {
            slots: Vec::new(),
            free: 0,
            len: 0,
        }
    }
}

impl<T> Slab<T> {
    /// The number the next `insert` will give.
    pub fn next_key(&self) -> usize {
        self.free
    }

    /// Stores `value`; returns its number.
    pub fn insert(&mut self, value: T) -> usize {
        let key = self.free;
        if key == self.slots.len() {
            self.slots.push(Slot::Taken(value));
            self.free = key + 1;
        } else {
            let Slot::Free { next } = std::mem::replace(&mut self.slots[key], Slot::Taken(value))
            else {
                unreachable!("the free list leads to free slots only");
            };
            self.free = next;
        }
        self.len += 1;
        key
    }

    /// The value numbered `key`, if there is one.
    pub fn get(&self, key: usize) -> Option<&T> {
        match self.slots.get(key) {
            Some(Slot::Taken(value)) => Some(value),
            _ => None,
        }
    }

    /// Takes the value numbered `key` out; its number is free again.
    ///
    /// # Panics
    ///
    /// If there is no value numbered `key`.
    pub fn remove(&mut self, key: usize) -> T {
        match self.slots.get_mut(key) {
            Some(slot @ Slot::Taken(_)) => {
                let Slot::Taken(value) = std::mem::replace(slot, Slot::Free { next: self.free })
                else {
                    unreachable!()
                };
                self.free = key;
                self.len -= 1;
                value
            }
            _ => panic!("no value numbered {key}"),
        }
    }

    /// How many values there are.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_given_in_order_and_a_freed_one_is_given_again_first() {
        let mut slab = Slab::default();
        assert_eq!(
            [slab.insert('a'), slab.insert('b'), slab.insert('c')],
            [0, 1, 2]
        );
        assert_eq!(slab.remove(1), 'b');
        assert_eq!(slab.remove(0), 'a');
        assert_eq!(
            (slab.len(), slab.get(0), slab.get(2)),
            (1, None, Some(&'c'))
        );
        // Last freed, first given; then the vector grows.
        assert_eq!(slab.next_key(), 0);
        assert_eq!(
            [slab.insert('d'), slab.insert('e'), slab.insert('f')],
            [0, 1, 3]
        );
        assert_eq!(slab.len(), 4);
        assert_eq!(
            slab.slots.len(),
            4,
            "no slot more than the most alive at once"
        );
    }

    #[test]
    fn it_is_empty_before_the_first_insert_and_after_the_last_remove() {
        let mut slab = Slab::default();
        assert!(slab.is_empty());
        let (a, b) = (slab.insert('a'), slab.insert('b'));
        slab.remove(a);
        assert!(!slab.is_empty(), "one value left");
        slab.remove(b);
        assert!(slab.is_empty());
    }

    #[test]
    #[should_panic(expected = "no value numbered 5")]
    fn removing_a_number_that_holds_nothing_panics() {
        let mut slab = Slab::<u8>::default();
        slab.insert(1);
        slab.remove(5);
    }
}
