// What the tests know about the book: where it is, its pages and editions.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const SCREENSHOTS = path.join(REPO, 'target/ci-artefacts/screenshots');

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
