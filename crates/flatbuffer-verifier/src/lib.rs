//! FlatBuffer verification with the rules, order and error text of flatcc's
//! verifier, the one upstream IREE runs on every FlatBuffer before it reads
//! a field (bytecode modules, CUDA and HIP executables), driven by the same
//! `.fbs` schema the Rust accessors are generated from.
//!
//! The `flatbuffers` crate's verifier, which the generated accessors need,
//! checks less than flatcc's: it accepts a vtable shorter than its own
//! header and inline fields past the table's declared size. Files with such
//! defects run on a verifier that reads them anyway and fail upstream
//! ("vtable header too small", "table field out of range"). Callers run
//! [`verify_root`] first, for upstream's verdict and wording, then the
//! crate's verifier, for the accessors (it also checks that strings are
//! UTF-8, which flatcc does not).
//!
//! ```
//! use iree_flatbuffer_verifier::{verify_root, Limits, Schema};
//!
//! let schema = Schema::parse(&[(
//!     "point.fbs",
//!     "table Point { x:int; y:int; } root_type Point;",
//! )])
//! .unwrap();
//! // Root offset 12; vtable at 4 (size 8, table size 12, x at 4, y at 8);
//! // table at 12 (soffset 8, x = 1, y = 2).
//! let mut buf = vec![12, 0, 0, 0, 8, 0, 12, 0, 4, 0, 8, 0, 8, 0, 0, 0];
//! buf.extend_from_slice(&[1, 0, 0, 0, 2, 0, 0, 0]);
//! verify_root(&schema, &buf, 0, &Limits::for_len(buf.len())).unwrap();
//! buf[6] = 8; // the table claims 8 bytes: y is outside it
//! let error = verify_root(&schema, &buf, 0, &Limits::for_len(buf.len())).unwrap_err();
//! assert_eq!(error.to_string(), "table field out of range");
//! ```

mod schema;
mod verify;

pub use schema::{Schema, SchemaError};
pub use verify::{verify_root, Error, Limits};
