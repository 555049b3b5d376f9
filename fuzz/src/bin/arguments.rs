//! Fuzz target `arguments`: an input schema and a call's arguments into the argument validator.
//! Its input format is in the module docs of `toolwire::__private::fuzz`.

fn main() {
    afl::fuzz!(|data: &[u8]| toolwire::__private::fuzz::arguments(data));
}
