fn main() {
    std::process::exit(hieralint::cli::main());
}
