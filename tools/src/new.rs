pub fn run(_p: &crown_engine::content::Project, _a: &crate::cli::NewArgs) -> i32 { 0 }
