//! Fuzz target `http_request`: headers and a body into `mcp_router`, in process.
//! Its input format is in the module docs of `toolwire::__private::fuzz`.

fn main() {
    afl::fuzz!(|data: &[u8]| toolwire::__private::fuzz::http_request(data));
}
