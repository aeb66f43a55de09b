//! Throughput of random potverteren games (filled in by the rules core's issue).
fn main() {}
