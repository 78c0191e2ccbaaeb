// What the book's interface scripts share: which edition the page belongs
// to, and mdBook's interface words in that edition's language. Loaded before
// them (book.toml's additional-js); each of them does nothing unless this
// file found an edition.
//
// The book holds two parallel editions in one mdBook: Japanese pages under
// ja/ and Chinese pages under zh/. The interface scripts, one per feature,
// in the order book.toml loads them:
//   asyncbook-code-buttons.js  the copy button copies the whole program;
//   asyncbook-interface.js     mdBook's English interface in the edition's language;
//   asyncbook-navigation.js    previous/next stay in the edition; the language picker;
//   asyncbook-search.js        the search box, answered by Pagefind;
//   asyncbook-highlight.js     the searched words, marked on the page a result leads to.
// Other pages (the bilingual landing page, the print pages, 404) are left as
// mdBook made them.
//
// Exposes window.asyncbook: null on other pages; on an edition page
//   { edition, other, lang, rest, root, inFolder(href, folder), translate(text),
//     HIGHLIGHT_PARAM }.
//
// mdBook 0.5.4 internals relied on: the global `path_to_root` (index.hbs,
// in <head>), and the English strings of index.hbs and book.js (below).
// `window.asyncbookPath` is ours (theme/head.hbs, from mdBook's `{{ path }}`).

/* global path_to_root */

window.asyncbook = (function edition() {
    'use strict';

    const EDITIONS = {
        ja: { lang: 'ja', other: 'zh' },
        zh: { lang: 'zh-CN', other: 'ja' },
    };

    // mdBook 0.5.4's interface words, keyed by its English strings exactly as
    // book.js and the templates write them.
    const WORDS = {
        ja: {
            'Toggle Table of Contents': '目次の表示切り替え',
            'Table of contents': '目次',
            'Change theme': 'テーマの変更',
            'Themes': 'テーマ',
            'Auto': '自動',
            'Light': 'ライト',
            'Rust': 'Rust',
            'Coal': 'チャコール',
            'Navy': 'ネイビー',
            'Ayu': 'Ayu',
            'Search (`/`)': '検索（/）',
            'Toggle Searchbar': '検索バーの表示切り替え',
            'Search this book ...': 'この本を検索…',
            'Print this book': 'この本を印刷',
            'Git repository': 'Git リポジトリ',
            'Suggest an edit': '編集を提案',
            'Page navigation': 'ページナビゲーション',
            'Previous chapter': '前の章',
            'Next chapter': '次の章',
            'Keyboard shortcuts': 'キーボードショートカット',
            'Copy to clipboard': 'クリップボードにコピー',
            'Copied!': 'コピーしました',
            'Clipboard error!': 'コピーできませんでした',
            'Show hidden lines': '隠れた行を表示',
            'Hide lines': '行を隠す',
            'Run this code': 'このコードを実行',
            'Undo changes': '変更を元に戻す',
            'Running...': '実行中…',
            'No output': '出力はありません',
            'Playground Communication: ': 'Rust Playground との通信エラー：',
            'Search Result Teaser': '検索結果の抜粋',
        },
        zh: {
            'Toggle Table of Contents': '显示/隐藏目录',
            'Table of contents': '目录',
            'Change theme': '更改主题',
            'Themes': '主题',
            'Auto': '自动',
            'Light': '浅色',
            'Rust': 'Rust',
            'Coal': '煤黑',
            'Navy': '藏青',
            'Ayu': 'Ayu',
            'Search (`/`)': '搜索（/）',
            'Toggle Searchbar': '显示/隐藏搜索栏',
            'Search this book ...': '搜索本书…',
            'Print this book': '打印本书',
            'Git repository': 'Git 仓库',
            'Suggest an edit': '建议修改',
            'Page navigation': '页面导航',
            'Previous chapter': '上一章',
            'Next chapter': '下一章',
            'Keyboard shortcuts': '键盘快捷键',
            'Copy to clipboard': '复制到剪贴板',
            'Copied!': '已复制',
            'Clipboard error!': '复制失败',
            'Show hidden lines': '显示隐藏的行',
            'Hide lines': '隐藏行',
            'Run this code': '运行此代码',
            'Undo changes': '撤销更改',
            'Running...': '运行中…',
            'No output': '没有输出',
            'Playground Communication: ': '与 Rust Playground 通信出错：',
            'Search Result Teaser': '搜索结果摘要',
        },
    };

    // The page's source path, e.g. "ja/ch02-wakers-and-timer.md". Only
    // chapters under ja/ and zh/ belong to an edition.
    const pagePath = typeof window.asyncbookPath === 'string' ? window.asyncbookPath : '';
    const match = /^(ja|zh)\/(.+)$/.exec(pagePath);
    if (!match) {
        return null;
    }
    const edition = match[1];
    const words = WORDS[edition];
    const root = typeof path_to_root === 'string' ? path_to_root : '';

    return {
        edition, // "ja" or "zh": the folder
        other: EDITIONS[edition].other,
        // The <html lang> of an edition ("ja", "zh-CN").
        lang: folder => EDITIONS[folder].lang,
        // The page's path within its edition: "ch02-wakers-and-timer.md".
        rest: match[2],
        root,
        // Whether a link leads into a folder of the book ("ja", "zh"), also
        // when the book is served below a prefix.
        inFolder(href, folder) {
            const folderPath = new URL(root + folder + '/', document.baseURI).pathname;
            return new URL(href, document.baseURI).pathname.startsWith(folderPath);
        },
        // One of mdBook's English strings in the edition's language; null for
        // any other text, so translating twice changes nothing.
        translate(text) {
            return Object.prototype.hasOwnProperty.call(words, text) ? words[text] : null;
        },
        // The query parameter that carries the searched words to the page a
        // result leads to: Pagefind's own (its highlight script's default).
        // mdBook's searcher.js marks words from ?highlight= when a page loads;
        // another name keeps the two from marking the same page twice.
        HIGHLIGHT_PARAM: 'pagefind-highlight',
    };
})();
