//! `mdbook-asyncbook`: the book's own mdBook plug-in, in two roles.
//!
//! - As a preprocessor (no arguments; `supports <renderer>` answers the
//!   capability query), it fills the appendices from `data/` and captions
//!   every code fragment with the listing file it comes from.
//! - As a renderer (`render`), run by mdBook after the HTML renderer, it marks
//!   each edition's pages with their language and builds the Pagefind index.
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        // book.toml names the renderers; should it stop doing so, mdBook asks:
        // the captions and appendices are for the HTML book and its link check.
        Some("supports") => match args.get(1).map(String::as_str) {
            Some("html" | "linkcheck2") => return,
            _ => std::process::exit(1),
        },
        Some("render") => mdbook_asyncbook::render::run(std::io::stdin()),
        None => mdbook_asyncbook::preprocess::run(std::io::stdin(), std::io::stdout()),
        Some(other) => Err(format!("unknown command `{other}`").into()),
    };
    if let Err(e) = result {
        eprintln!("mdbook-asyncbook: {e}");
        std::process::exit(1);
    }
}
