//! Throughput of random klaverjassen games (filled in by the rules core's issue).
fn main() {}
