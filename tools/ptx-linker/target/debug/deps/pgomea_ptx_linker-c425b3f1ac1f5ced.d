/work/main/tools/ptx-linker/target/debug/deps/pgomea_ptx_linker-c425b3f1ac1f5ced.d: src/main.rs Cargo.toml

/work/main/tools/ptx-linker/target/debug/deps/libpgomea_ptx_linker-c425b3f1ac1f5ced.rmeta: src/main.rs Cargo.toml

src/main.rs:
Cargo.toml:

# env-dep:CLIPPY_ARGS=-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__
# env-dep:CLIPPY_CONF_DIR
