//! `iree_vm_stack_t`: the frames native (C) module functions push while
//! they run, and the state resolver that finds each module's state.
//!
//! The VM's own frames live in its [`iree_vm::Stack`]; a C stack exists for
//! the duration of a call into C (or a call C makes with its own stack) and
//! records only the frames C code enters. Frames are 16-byte aligned with
//! `frame_size` bytes of storage after them, as upstream lays them out.

use std::ffi::c_void;

use iree_base::{Result, Status, StatusCode};

use crate::allocator::iree_allocator_t;
use crate::boundary;
use crate::handles;
use crate::status::{iree_status_t, take_status};
use crate::strings::{iree_byte_span_t, iree_host_size_t};
use crate::vm_module::{iree_vm_function_t, iree_vm_module_t};

/// `iree_vm_stack_frame_t`.
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct iree_vm_stack_frame_t {
    /// `iree_vm_stack_frame_type_t`.
    pub type_: u32,
    /// The function executing.
    pub function: iree_vm_function_t,
    /// Its module's state in the calling context.
    pub module_state: *mut c_void,
    /// The program counter (bytecode only).
    pub pc: i64,
    /// The frame's depth, 0 for the outermost.
    pub depth: i32,
}

/// `iree_vm_stack_frame_cleanup_fn_t`.
#[allow(non_camel_case_types)]
pub type iree_vm_stack_frame_cleanup_fn_t = unsafe extern "C" fn(frame: *mut iree_vm_stack_frame_t);

/// `iree_vm_state_resolver_t`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy)]
pub struct iree_vm_state_resolver_t {
    /// Passed to `query_module_state`.
    pub self_: *mut c_void,
    /// Finds the state of `module`.
    pub query_module_state: Option<
        unsafe extern "C" fn(
            state_resolver: *mut c_void,
            module: *mut iree_vm_module_t,
            out_module_state: *mut *mut c_void,
        ) -> iree_status_t,
    >,
}

impl iree_vm_state_resolver_t {
    /// The state of `module` in the resolver's context.
    pub(crate) fn resolve(&self, module: *mut iree_vm_module_t) -> Result<*mut c_void> {
        let Some(query) = self.query_module_state else {
            return Err(Status::new(
                StatusCode::FailedPrecondition,
                "the stack has no state resolver",
            ));
        };
        let mut state = std::ptr::null_mut();
        // SAFETY: the resolver's contract.
        unsafe { take_status(query(self.self_, module, &mut state)) }?;
        Ok(state)
    }
}

/// A frame and its trailing storage, in 16-byte units.
struct FrameBlock {
    block: Box<[u128]>,
    cleanup: Option<iree_vm_stack_frame_cleanup_fn_t>,
}

impl FrameBlock {
    fn frame(&mut self) -> *mut iree_vm_stack_frame_t {
        self.block.as_mut_ptr().cast()
    }
}

/// `iree_vm_stack_t`.
#[allow(non_camel_case_types)]
pub struct iree_vm_stack_t {
    flags: u32,
    resolver: iree_vm_state_resolver_t,
    allocator: iree_allocator_t,
    frames: Vec<FrameBlock>,
    spare: Vec<Box<[u128]>>,
}

impl iree_vm_stack_t {
    /// An empty stack resolving module states through `resolver`.
    pub(crate) fn new(
        flags: u32,
        resolver: iree_vm_state_resolver_t,
        allocator: iree_allocator_t,
    ) -> iree_vm_stack_t {
        iree_vm_stack_t {
            flags,
            resolver,
            allocator,
            frames: Vec::new(),
            spare: Vec::new(),
        }
    }

    /// The state resolver.
    pub(crate) fn resolver(&self) -> iree_vm_state_resolver_t {
        self.resolver
    }

    /// Pushes a frame for `function` with `frame_size` bytes of storage.
    fn enter(
        &mut self,
        function: iree_vm_function_t,
        frame_type: u32,
        frame_size: usize,
        cleanup: Option<iree_vm_stack_frame_cleanup_fn_t>,
    ) -> Result<*mut iree_vm_stack_frame_t> {
        if self.frames.len() >= 4096 {
            return Err(Status::new(
                StatusCode::ResourceExhausted,
                "VM stack overflow: too many native frames",
            ));
        }
        let module_state = if function.module.is_null() {
            std::ptr::null_mut()
        } else {
            self.resolver.resolve(function.module)?
        };
        let units = (std::mem::size_of::<iree_vm_stack_frame_t>() + frame_size).div_ceil(16);
        let block = match self.spare.iter().position(|b| b.len() >= units) {
            Some(i) => {
                let mut block = self.spare.swap_remove(i);
                block.fill(0);
                block
            }
            None => vec![0u128; units].into_boxed_slice(),
        };
        let depth = self.frames.len() as i32;
        let mut frame = FrameBlock { block, cleanup };
        let pointer = frame.frame();
        // SAFETY: the block holds at least one frame, 16-byte aligned.
        unsafe {
            pointer.write(iree_vm_stack_frame_t {
                type_: frame_type,
                function,
                module_state,
                pc: 0,
                depth,
            })
        };
        self.frames.push(frame);
        Ok(pointer)
    }

    /// Pops the top frame, running its cleanup.
    fn leave(&mut self) -> Result<()> {
        let Some(mut frame) = self.frames.pop() else {
            return Err(Status::new(
                StatusCode::FailedPrecondition,
                "unbalanced stack leave",
            ));
        };
        if let Some(cleanup) = frame.cleanup {
            // SAFETY: the frame is live until its block is recycled below.
            unsafe { cleanup(frame.frame()) };
        }
        self.spare.push(frame.block);
        Ok(())
    }

    fn top(&mut self) -> *mut iree_vm_stack_frame_t {
        self.frames
            .last_mut()
            .map_or(std::ptr::null_mut(), FrameBlock::frame)
    }
}

impl Drop for iree_vm_stack_t {
    fn drop(&mut self) {
        while !self.frames.is_empty() {
            let _ = self.leave();
        }
    }
}

/// The stack behind a handle.
///
/// # Safety
/// `stack` is NULL or a live stack.
unsafe fn stack<'a>(stack: *mut iree_vm_stack_t) -> Result<&'a mut iree_vm_stack_t> {
    // SAFETY: per the contract.
    unsafe { stack.as_mut() }.ok_or_else(|| handles::null_argument("stack"))
}

/// `iree_vm_stack_initialize`: a stack placed in caller storage (what
/// `IREE_VM_INLINE_STACK_INITIALIZE` gives).
///
/// # Safety
/// `storage` is valid and outlives the stack; `out_stack` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_stack_initialize(
    storage: iree_byte_span_t,
    flags: u32,
    state_resolver: iree_vm_state_resolver_t,
    allocator: iree_allocator_t,
    out_stack: *mut *mut iree_vm_stack_t,
) -> iree_status_t {
    boundary::status("iree_vm_stack_initialize", || {
        // SAFETY: per the contract.
        let out =
            unsafe { out_stack.as_mut() }.ok_or_else(|| handles::null_argument("out_stack"))?;
        *out = std::ptr::null_mut();
        let align = std::mem::align_of::<iree_vm_stack_t>();
        let size = std::mem::size_of::<iree_vm_stack_t>();
        let padding = (storage.data as usize).wrapping_neg() & (align - 1);
        if storage.data.is_null() || storage.data_length < padding + size {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                format!("stack storage must hold at least {} bytes", padding + size),
            ));
        }
        // SAFETY: the aligned place lies inside the caller's storage.
        let place = unsafe { storage.data.add(padding) }.cast::<iree_vm_stack_t>();
        // SAFETY: as above; the storage is uninitialized memory we own now.
        unsafe { place.write(iree_vm_stack_t::new(flags, state_resolver, allocator)) };
        *out = place;
        Ok(())
    })
}

/// `iree_vm_stack_deinitialize`: pops any frames left.
///
/// # Safety
/// `stack` was made by [`iree_vm_stack_initialize`] and is not used after.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_stack_deinitialize(stack: *mut iree_vm_stack_t) {
    if !stack.is_null() {
        // SAFETY: per the contract.
        boundary::value("iree_vm_stack_deinitialize", (), || unsafe {
            std::ptr::drop_in_place(stack)
        })
    }
}

/// `iree_vm_stack_reset`: pops every frame.
///
/// # Safety
/// `stack` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_stack_reset(stack: *mut iree_vm_stack_t) {
    boundary::value("iree_vm_stack_reset", (), || {
        // SAFETY: per the contract.
        if let Ok(stack) = unsafe { self::stack(stack) } {
            while stack.leave().is_ok() {}
        }
    })
}

/// `iree_vm_stack_allocate`: a heap stack (free with
/// [`iree_vm_stack_free`]).
///
/// # Safety
/// `out_stack` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_stack_allocate(
    flags: u32,
    state_resolver: iree_vm_state_resolver_t,
    allocator: iree_allocator_t,
    out_stack: *mut *mut iree_vm_stack_t,
) -> iree_status_t {
    boundary::status("iree_vm_stack_allocate", || {
        // SAFETY: per the contract.
        let out =
            unsafe { out_stack.as_mut() }.ok_or_else(|| handles::null_argument("out_stack"))?;
        *out = Box::into_raw(Box::new(iree_vm_stack_t::new(
            flags,
            state_resolver,
            allocator,
        )));
        Ok(())
    })
}

/// `iree_vm_stack_free`.
///
/// # Safety
/// `stack` was made by [`iree_vm_stack_allocate`] and is not used after.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_stack_free(stack: *mut iree_vm_stack_t) {
    if !stack.is_null() {
        boundary::value("iree_vm_stack_free", (), || {
            // SAFETY: per the contract.
            drop(unsafe { Box::from_raw(stack) })
        })
    }
}

/// `iree_vm_stack_allocator`.
///
/// # Safety
/// `stack` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_stack_allocator(
    stack: *const iree_vm_stack_t,
) -> iree_allocator_t {
    // SAFETY: per the contract.
    unsafe { stack.as_ref() }.map_or(iree_allocator_t::null(), |s| s.allocator)
}

/// `iree_vm_stack_invocation_flags`.
///
/// # Safety
/// `stack` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_stack_invocation_flags(stack: *const iree_vm_stack_t) -> u32 {
    boundary::value("iree_vm_stack_invocation_flags", 0, || {
        // SAFETY: per the contract.
        unsafe { stack.as_ref() }.map_or(0, |s| s.flags)
    })
}

/// `iree_vm_stack_top`.
///
/// # Safety
/// `stack` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_stack_top(
    stack: *mut iree_vm_stack_t,
) -> *mut iree_vm_stack_frame_t {
    boundary::value("iree_vm_stack_top", std::ptr::null_mut(), || {
        // SAFETY: per the contract.
        unsafe { self::stack(stack) }.map_or(std::ptr::null_mut(), |s| s.top())
    })
}

/// `iree_vm_stack_current_frame`: the top frame.
///
/// # Safety
/// `stack` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_stack_current_frame(
    stack: *mut iree_vm_stack_t,
) -> *mut iree_vm_stack_frame_t {
    boundary::value("iree_vm_stack_current_frame", std::ptr::null_mut(), || {
        // SAFETY: forwarded contract.
        unsafe { iree_vm_stack_top(stack) }
    })
}

/// `iree_vm_stack_parent_frame`: the frame below the top.
///
/// # Safety
/// `stack` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_stack_parent_frame(
    stack: *mut iree_vm_stack_t,
) -> *mut iree_vm_stack_frame_t {
    boundary::value("iree_vm_stack_parent_frame", std::ptr::null_mut(), || {
        // SAFETY: per the contract.
        let Ok(stack) = (unsafe { self::stack(stack) }) else {
            return std::ptr::null_mut();
        };
        let n = stack.frames.len();
        if n < 2 {
            return std::ptr::null_mut();
        }
        stack.frames[n - 2].frame()
    })
}

/// `iree_vm_stack_query_module_state`.
///
/// # Safety
/// `stack` is live; `out_module_state` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_stack_query_module_state(
    stack: *mut iree_vm_stack_t,
    module: *mut iree_vm_module_t,
    out_module_state: *mut *mut c_void,
) -> iree_status_t {
    boundary::status("iree_vm_stack_query_module_state", || {
        // SAFETY: per the contract.
        let stack = unsafe { self::stack(stack) }?;
        // SAFETY: per the contract.
        let out = unsafe { out_module_state.as_mut() }
            .ok_or_else(|| handles::null_argument("out_module_state"))?;
        *out = stack.resolver.resolve(module)?;
        Ok(())
    })
}

/// `iree_vm_stack_function_enter`: pushes a frame for `function` and
/// resolves its module's state.
///
/// # Safety
/// `stack` is live; `function` is valid; `out_callee_frame` is NULL or
/// valid.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_stack_function_enter(
    stack: *mut iree_vm_stack_t,
    function: *const iree_vm_function_t,
    frame_type: u32,
    frame_size: iree_host_size_t,
    frame_cleanup_fn: Option<iree_vm_stack_frame_cleanup_fn_t>,
    out_callee_frame: *mut *mut iree_vm_stack_frame_t,
) -> iree_status_t {
    boundary::status("iree_vm_stack_function_enter", || {
        // SAFETY: per the contract.
        let stack = unsafe { self::stack(stack) }?;
        // SAFETY: per the contract.
        let function =
            *unsafe { function.as_ref() }.ok_or_else(|| handles::null_argument("function"))?;
        let frame = stack.enter(function, frame_type, frame_size, frame_cleanup_fn)?;
        // SAFETY: per the contract.
        if let Some(out) = unsafe { out_callee_frame.as_mut() } {
            *out = frame;
        }
        Ok(())
    })
}

/// `iree_vm_stack_function_leave`: pops the top frame.
///
/// # Safety
/// `stack` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_stack_function_leave(
    stack: *mut iree_vm_stack_t,
) -> iree_status_t {
    boundary::status("iree_vm_stack_function_leave", || {
        // SAFETY: per the contract.
        unsafe { self::stack(stack) }?.leave()
    })
}

/// `iree_vm_stack_annotate_backtrace`: native frames carry no source
/// locations here; the status is returned as is.
#[no_mangle]
pub extern "C" fn iree_vm_stack_annotate_backtrace(
    _stack: *mut iree_vm_stack_t,
    base_status: iree_status_t,
) -> iree_status_t {
    boundary::forward("iree_vm_stack_annotate_backtrace", || base_status)
}

/// Runs `f` with a heap stack that resolves states with `resolver`.
pub(crate) fn with_stack<R>(
    resolver: iree_vm_state_resolver_t,
    f: impl FnOnce(*mut iree_vm_stack_t) -> R,
) -> R {
    let mut stack = iree_vm_stack_t::new(0, resolver, iree_allocator_t::system());
    f(&mut stack)
}

/// A status from a C callee, annotated as upstream's callers do not (kept
/// as is).
pub(crate) fn callee_status(status: iree_status_t) -> Result<()> {
    // SAFETY: a status returned by a callee is owned by us.
    unsafe { take_status(status) }
}
