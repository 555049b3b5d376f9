//! Fuzz target `sse`: a server's SSE stream into the client's SSE parser.
//! Its input format is in the module docs of `toolwire::__private::fuzz`.

fn main() {
    afl::fuzz!(|data: &[u8]| toolwire::__private::fuzz::sse(data));
}
