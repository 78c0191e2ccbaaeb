//! `mdbook-asyncbook`: the book's own mdBook plug-in, in two roles.
//!
//! - As a preprocessor (no arguments; `supports <renderer>` answers the
//!   capability query), it writes each code block's hidden frame, fills the
//!   appendices from `data/` and captions every code fragment with the
//!   listing file it comes from.
//! - As a renderer (`render`), run by mdBook after the HTML renderer, it marks
//!   each edition's pages with their language and builds the Pagefind index.

use mdbook_asyncbook::Error;
use mdbook_asyncbook::preprocess::AsyncBook;
use mdbook_preprocessor::Preprocessor;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("supports") => {
            let renderer = args.get(1).map(String::as_str).unwrap_or_default();
            match AsyncBook.supports_renderer(renderer) {
                Ok(true) => return,
                _ => std::process::exit(1),
            }
        }
        Some("render") => mdbook_asyncbook::render::run(std::io::stdin()),
        None => preprocess(),
        Some(other) => Err(Error::new(format!("unknown command `{other}`"))),
    };
    if let Err(e) = result {
        eprintln!("mdbook-asyncbook: {e}");
        std::process::exit(1);
    }
}

/// mdBook's preprocessor protocol: `[context, book]` in, the book out.
fn preprocess() -> mdbook_asyncbook::Result<()> {
    let (ctx, book) = mdbook_preprocessor::parse_input(std::io::stdin())?;
    let book = AsyncBook.run(&ctx, book)?;
    serde_json::to_writer(std::io::stdout().lock(), &book)?;
    Ok(())
}
