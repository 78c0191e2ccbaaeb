// What the tests know about the book: where it is, its pages and editions.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const SCREENSHOTS = path.join(REPO, 'target/ci-artefacts/screenshots');
// The built book (`mdbook build`): the HTML book, and beside it the folder of
// the book's own renderer.
export const BOOK_HTML = process.env.BOOK_HTML ?? path.join(REPO, 'book/html');

export const EDITIONS = {
    ja: { lang: 'ja', other: 'zh', label: '日本語' },
    zh: { lang: 'zh-CN', other: 'ja', label: '中文' },
};

// Every edition page, in SUMMARY.md's order: "ja/ch01-future-trait.html", …
// Read from SUMMARY.md rather than listed here, so a new chapter is tested
// as soon as it is in the book.
export const EDITION_PAGES = [...readFileSync(path.join(REPO, 'src/SUMMARY.md'), 'utf8')
    .matchAll(/\]\(((?:ja|zh)\/[^)#]+)\.md\)/g)]
    .map(m => `${m[1]}.html`);

export const editionOf = page => page.split('/')[0];
// The same file in the other edition: "ja/x.html" -> "zh/x.html".
export const otherEditionPage = page =>
    `${EDITIONS[editionOf(page)].other}/${page.slice(page.indexOf('/') + 1)}`;

// The editions' print pages, at the book's root (written by the book's
// renderer, tools/mdbook-asyncbook/src/print.rs).
export const PRINT_PAGES = Object.keys(EDITIONS).map(edition => `print-${edition}.html`);

// The whole programs of a chapter page's ```rust blocks, in order (what the
// copy button must give; the renderer writes them beside the HTML book, in
// its own output folder, after checking that they are the programs the
// book's tests compile): programsOf("ja/ch01-future-trait.html").
let programs = null;
export function programsOf(page) {
    const file = path.join(BOOK_HTML, '../pagefind/programs.json');
    programs ??= JSON.parse(readFileSync(file, 'utf8'));
    const list = programs[page.replace(/\.html$/, '.md')];
    if (!list) {
        throw new Error(`${file} has no ${page}`);
    }
    return list;
}
