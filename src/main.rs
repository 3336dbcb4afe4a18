// mimalloc instead of glibc's malloc: a check allocates many small nodes from several rayon
// threads, and glibc grows its per-thread arenas with an mprotect call per page run (4,000
// calls, a third of the process's time, on wikimedia's hieradata). docs/benchmarks.md has the
// before/after figures.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(hieralint::cli::main());
}
