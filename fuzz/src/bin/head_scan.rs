//! Fuzz target `head_scan`: the HTTP socket layer's request-head scan, fed in pieces, against
//! its line-by-line reference. Its input format is in the module docs of
//! `toolwire::__private::fuzz`.

fn main() {
    afl::fuzz!(|data: &[u8]| toolwire::__private::fuzz::head_scan(data));
}
