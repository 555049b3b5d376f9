//! Fuzz target `envelope`: one JSON-RPC line (a message or a batch) into the envelope decoder.
//! Its input format is in the module docs of `toolwire::__private::fuzz`.

fn main() {
    afl::fuzz!(|data: &[u8]| toolwire::__private::fuzz::envelope(data));
}
