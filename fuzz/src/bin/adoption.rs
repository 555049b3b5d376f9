//! Fuzz target `adoption`: a listed tool's `inputSchema` into the client's adoption checks.
//! Its input format is in the module docs of `toolwire::__private::fuzz`.

fn main() {
    afl::fuzz!(|data: &[u8]| toolwire::__private::fuzz::adoption(data));
}
