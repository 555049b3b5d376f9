//! Locks taken over after a panic.
//!
//! A thread that panics while it holds a `std::sync` lock leaves the lock poisoned, and
//! every later `lock()` returns an error. These locks guard toolwire's own tables and queues
//! (calls in flight, sessions, subscriptions, output queues), and a server goes on answering
//! other calls after one body's panic (it is caught and answered as an error). Every lock in
//! the crate had already chosen, one by one, to take a poisoned lock over rather than turn
//! one panic into a panic in every later caller; these functions are that choice in one
//! place, and every lock is taken (and waited on) through them.

use std::sync::{Condvar, Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// `m` locked, taken over if a panic poisoned it.
pub fn lock<T: ?Sized>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// `l` read-locked, taken over if a panic poisoned it.
pub fn read_lock<T: ?Sized>(l: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    l.read().unwrap_or_else(PoisonError::into_inner)
}

/// `l` write-locked, taken over if a panic poisoned it.
pub fn write_lock<T: ?Sized>(l: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    l.write().unwrap_or_else(PoisonError::into_inner)
}

/// Wait on `cv` with `guard`, the lock taken over if a panic poisoned it meanwhile.
pub fn wait<'a, T>(cv: &Condvar, guard: MutexGuard<'a, T>) -> MutexGuard<'a, T> {
    cv.wait(guard).unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_poisoned_lock_is_taken_over_with_what_it_held() {
        let m = Mutex::new(1);
        let l = RwLock::new(2);
        std::thread::scope(|s| {
            let _ = s
                .spawn(|| {
                    let _m = m.lock().unwrap();
                    let _l = l.write().unwrap();
                    panic!("poison both");
                })
                .join();
        });
        assert!(m.is_poisoned() && l.is_poisoned());
        assert_eq!(*lock(&m), 1);
        assert_eq!(*read_lock(&l), 2);
        *write_lock(&l) = 3;
        assert_eq!(*read_lock(&l), 3);
    }
}
