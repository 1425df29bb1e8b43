pub fn hello() {}
