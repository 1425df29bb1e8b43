fn main() { pgomea::hello(); }
