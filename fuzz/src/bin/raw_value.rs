//! Fuzz target `raw_value`: the call scan's value finder against serde_json, on any text.
//! Its input format is in the module docs of `toolwire::__private::fuzz`.

fn main() {
    afl::fuzz!(|data: &[u8]| toolwire::__private::fuzz::raw_value(data));
}
