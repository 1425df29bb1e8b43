//! Every GPU kernel of pgomea, one module per stage. Compiled for `nvptx64-nvidia-cuda` only.

pub mod gom;
pub mod smoke;
