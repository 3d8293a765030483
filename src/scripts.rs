//! The Lua scripts under `src/lua/`, embedded by `build.rs` with their SHA1.
include!(concat!(env!("OUT_DIR"), "/scripts.rs"));
