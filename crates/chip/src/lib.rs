pub mod config; pub mod elf;
