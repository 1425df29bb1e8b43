//! Typed addresses of the flat arrays the stages work on: device memory when a kernel runs them,
//! host memory when the CPU backend runs them. Kernels take these (inside `#[repr(C)]` argument
//! structs), never bare integers, so every argument says what it points to.

use core::marker::PhantomData;

// ANCHOR: ptr
/// The address of an array of `T`: a raw pointer with its element type, laid out as one (so an
/// argument struct made of them has the same layout on the host and on the GPU).
///
/// A `Ptr` owns nothing and checks nothing: whoever builds one from an allocation keeps that
/// allocation alive and large enough for every index the stages use (the host sizes every
/// buffer from the same layout the stages index with), and every read and write through it is
/// `unsafe` with exactly that precondition.
#[repr(transparent)]
pub struct Ptr<T> {
    addr: *mut T,
    _element: PhantomData<T>,
}
// ANCHOR_END: ptr

impl<T> Clone for Ptr<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Ptr<T> {}

impl<T> Default for Ptr<T> {
    /// The null address (a field the kernel at hand does not use).
    fn default() -> Self {
        Self::from_addr(0)
    }
}

impl<T> core::fmt::Debug for Ptr<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Ptr({:#x})", self.addr())
    }
}

impl<T> PartialEq for Ptr<T> {
    fn eq(&self, other: &Self) -> bool {
        self.addr == other.addr
    }
}
impl<T> Eq for Ptr<T> {}

// SAFETY: a `Ptr` is an address; sending or sharing it moves no data. Every access through it
// is unsafe and the caller answers for data races there (the stages write disjoint elements, or
// use atomics).
unsafe impl<T> Send for Ptr<T> {}
// SAFETY: as for Send.
unsafe impl<T> Sync for Ptr<T> {}

impl<T> Ptr<T> {
    /// An address in device memory, as the driver hands it out (cudarc's `device_ptr`).
    #[inline(always)]
    pub const fn from_addr(addr: u64) -> Self {
        Ptr { addr: addr as usize as *mut T, _element: PhantomData }
    }

    /// The first element of a host array the stages may write.
    #[inline(always)]
    pub fn from_mut_slice(s: &mut [T]) -> Self {
        Ptr { addr: s.as_mut_ptr(), _element: PhantomData }
    }

    /// The first element of a host array the stages only read (problem data, the layout).
    /// Writing through the result is undefined behaviour.
    #[inline(always)]
    pub fn from_slice(s: &[T]) -> Self {
        Ptr { addr: s.as_ptr() as *mut T, _element: PhantomData }
    }

    /// The same address as an array of `U` (the buffers are allocated as bytes, aligned for
    /// every element type, and read through their typed pointers).
    #[inline(always)]
    pub const fn cast<U>(self) -> Ptr<U> {
        Ptr { addr: self.addr.cast(), _element: PhantomData }
    }

    #[inline(always)]
    pub fn addr(self) -> u64 {
        self.addr as usize as u64
    }

    /// The address of element `i`.
    ///
    /// # Safety
    ///
    /// Element `i` lies inside the array (one past its end at most).
    #[inline(always)]
    pub unsafe fn at(self, i: usize) -> *mut T {
        // SAFETY: in bounds by the caller's precondition.
        unsafe { self.addr.add(i) }
    }

    /// The array from element `i` on (a row of a matrix).
    ///
    /// # Safety
    ///
    /// As [`Ptr::at`].
    #[inline(always)]
    pub unsafe fn offset(self, i: usize) -> Ptr<T> {
        // SAFETY: forwarded precondition.
        Ptr { addr: unsafe { self.at(i) }, _element: PhantomData }
    }

    /// Element `i`.
    ///
    /// # Safety
    ///
    /// Element `i` lies inside a live array, is initialised, and no other thread writes it at
    /// the same time.
    #[inline(always)]
    pub unsafe fn read(self, i: usize) -> T
    where
        T: Copy,
    {
        // SAFETY: the caller's precondition.
        unsafe { *self.at(i) }
    }

    /// Stores `value` as element `i`.
    ///
    /// # Safety
    ///
    /// Element `i` lies inside a live, writable array, and no other thread reads or writes it
    /// at the same time (a flag that several threads set goes through [`crate::atomic`]).
    #[inline(always)]
    pub unsafe fn write(self, i: usize, value: T) {
        // SAFETY: the caller's precondition.
        unsafe { *self.at(i) = value }
    }
}
