// The edition-aware interface of the book (listed in book.toml's additional-js,
// so mdBook loads it last, after book.js and searcher.js have set up the page).
//
// The book holds two parallel editions, Japanese pages under ja/ and Chinese
// pages under zh/, in one mdBook. On an edition page this script:
//   1. translates the interface mdBook 0.5.4 hard-codes in English;
//   2. drops previous/next links that would cross into the other edition
//      (asyncbook.css hides the other edition in the sidebar);
//   3. adds a link to the same section in the other edition;
//   4. makes the copy button copy the whole program, hidden lines included
//      (which theme/hidden-code.js loads when needed);
//   5. answers mdBook's search box with Pagefind, which can search Japanese and
//      Chinese (mdBook's elasticlunr index cannot), and marks the searched
//      words on the page a result leads to.
// Other pages (the bilingual landing page, print.html, 404) are left exactly
// as mdBook made them.
//
// The mdBook internals relied on are named where they are used, and listed in
// the summary at the end of this file.

/* global path_to_root, Mark */

(function asyncbook() {
    'use strict';

    // theme/hidden-code.js, loaded before this file.
    const hiddenCode = window.asyncbookHiddenCode;

    const EDITIONS = {
        ja: { lang: 'ja', other: 'zh' },
        zh: { lang: 'zh-CN', other: 'ja' },
    };

    // Interface words. The keys of `ui` are mdBook 0.5.4's English strings,
    // exactly as book.js and the templates write them.
    const WORDS = {
        ja: {
            ui: {
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
            // The help dialog's lines, keyed by their English text.
            help: {
                'Press ← or → to navigate between chapters': '<kbd>←</kbd> または <kbd>→</kbd> で前後の章へ移動',
                'Press S or / to search in the book': '<kbd>S</kbd> または <kbd>/</kbd> でこの本を検索',
                'Press ? to show this help': '<kbd>?</kbd> でこのヘルプを表示',
                'Press Esc to hide this help': '<kbd>Esc</kbd> でこのヘルプを閉じる',
            },
            copyProgram: 'プログラム全体をコピー（隠れた行も含む）',
            switchText: '中文',
            switchTitle: '中文版で同じ箇所を開く',
            resultCount: (n, term) => `「${term}」の検索結果：${n} 件`,
            noResults: term => `「${term}」に一致する結果はありません。`,
            searchUnavailable: '検索インデックスを読み込めませんでした。',
            searchNeedsServer: 'ファイルから直接開いたページでは検索を使えません。mdbook serve で表示するか、HTTP で配信してください。',
        },
        zh: {
            ui: {
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
            help: {
                'Press ← or → to navigate between chapters': '按 <kbd>←</kbd> 或 <kbd>→</kbd> 在章节之间跳转',
                'Press S or / to search in the book': '按 <kbd>S</kbd> 或 <kbd>/</kbd> 在本书中搜索',
                'Press ? to show this help': '按 <kbd>?</kbd> 显示此帮助',
                'Press Esc to hide this help': '按 <kbd>Esc</kbd> 关闭此帮助',
            },
            copyProgram: '复制完整程序（包括隐藏的行）',
            switchText: '日本語',
            switchTitle: '在日文版中打开同一位置',
            resultCount: (n, term) => `找到 ${n} 个与“${term}”匹配的结果`,
            noResults: term => `没有找到与“${term}”匹配的结果。`,
            searchUnavailable: '无法加载搜索索引。',
            searchNeedsServer: '直接以文件方式打开的页面无法使用搜索。请用 mdbook serve 打开本书，或通过 HTTP 提供本书的网页。',
        },
    };

    // The page's source path, e.g. "ja/ch02-wakers-and-timer.md", written by
    // theme/head.hbs from mdBook's `{{ path }}`. Only chapters under ja/ and
    // zh/ belong to an edition; everything else is left alone.
    const pagePath = typeof window.asyncbookPath === 'string' ? window.asyncbookPath : '';
    const match = /^(ja|zh)\/(.+)$/.exec(pagePath);
    if (!match) {
        return;
    }
    const edition = match[1];
    const other = EDITIONS[edition].other;
    const words = WORDS[edition];
    // `path_to_root` is the global const mdBook's index.hbs defines in <head>.
    const root = typeof path_to_root === 'string' ? path_to_root : '';

    // Where a folder of the book is, as an absolute path ("/ja/", or
    // "/some/prefix/ja/" when the book is served below a prefix).
    function folderPath(folder) {
        return new URL(root + folder, document.baseURI).pathname;
    }
    function inFolder(href, folder) {
        return new URL(href, document.baseURI).pathname.startsWith(folderPath(folder + '/'));
    }

    function translate(text) {
        return Object.prototype.hasOwnProperty.call(words.ui, text) ? words.ui[text] : null;
    }

    const ATTRIBUTES = ['title', 'aria-label', 'placeholder'];

    // Replaces an attribute's value if it is one of mdBook's English strings.
    // Only exact matches change, so translating twice, or text that is not
    // mdBook's, is harmless.
    function translateAttribute(el, name) {
        const value = el.getAttribute(name);
        const local = value === null ? null : translate(value);
        if (local !== null && local !== value) {
            el.setAttribute(name, local);
        }
    }

    function translateAttributesIn(scope) {
        const selector = ATTRIBUTES.map(a => `[${a}]`).join(',');
        for (const el of [scope, ...scope.querySelectorAll(selector)]) {
            for (const name of ATTRIBUTES) {
                translateAttribute(el, name);
            }
        }
    }

    // 1. The interface as mdBook's templates and book.js left it at load time:
    //    the menu bar, theme list, search bar, navigation, help dialog, and the
    //    buttons book.js has already put on code blocks.
    function localiseInterface() {
        translateAttributesIn(document.body);
        // The theme names are the buttons' text.
        for (const button of document.querySelectorAll('#mdbook-theme-list button.theme')) {
            const local = translate(button.textContent.trim());
            if (local !== null) {
                button.textContent = local;
            }
        }
        // The keyboard-shortcut help dialog (index.hbs). Each line is matched by
        // its English text, so the search line stays absent if search is off.
        const help = document.getElementById('mdbook-help-popup');
        if (help) {
            const title = help.querySelector('.mdbook-help-title');
            if (title && translate(title.textContent.trim()) !== null) {
                title.textContent = translate(title.textContent.trim());
            }
            for (const p of help.querySelectorAll('p')) {
                const english = p.textContent.replace(/\s+/g, ' ').trim();
                if (Object.prototype.hasOwnProperty.call(words.help, english)) {
                    p.innerHTML = words.help[english]; // our own constant markup
                }
            }
        }
        // index.hbs points the search bar at "searchresults-header", an id that
        // does not exist; the header's id is "mdbook-searchresults-header".
        const searchbar = document.getElementById('mdbook-searchbar');
        if (searchbar && document.getElementById('mdbook-searchresults-header')) {
            searchbar.setAttribute('aria-describedby', 'mdbook-searchresults-header');
        }
    }

    // Strings book.js and searcher.js write later, after a click or a key:
    // the copy tooltip ("Copied!"), the eye button's new title, the
    // playground's "Running...", "No output" and "Playground Communication: …"
    // in `code.result`, and (where searcher.js still answers, on file://
    // pages) its results header. We replace the copy and eye buttons'
    // behaviour below anyway, but rather than wrap each of book.js's closures
    // (which we cannot reach), one MutationObserver catches whatever English
    // string they write, whenever they write it, and translates it before the
    // next paint (observer callbacks run as microtasks).
    function translateLaterStrings() {
        const prefix = 'Playground Communication: ';
        const someResults = /^(\d+) search results? for '(.*)':$/s;
        const noResults = /^No search results for '(.*)'\.$/s;
        function translateText(el) {
            const text = el.textContent;
            const local = translate(text);
            let found;
            if (local !== null && local !== text) {
                el.textContent = local;
            } else if (el.matches('code.result') && text.startsWith(prefix)) {
                el.textContent = translate(prefix) + text.slice(prefix.length);
            } else if (el.id === 'mdbook-searchresults-header' && (found = someResults.exec(text))) {
                el.textContent = words.resultCount(Number(found[1]), found[2]);
            } else if (el.id === 'mdbook-searchresults-header' && (found = noResults.exec(text))) {
                el.textContent = words.noResults(found[1]);
            }
        }
        const observer = new MutationObserver(records => {
            for (const record of records) {
                if (record.type === 'attributes') {
                    translateAttribute(record.target, record.attributeName);
                    continue;
                }
                for (const node of record.addedNodes) {
                    if (node instanceof Element) {
                        translateAttributesIn(node);
                    }
                }
                const target = record.type === 'characterData'
                    ? record.target.parentElement
                    : record.target;
                if (target && target.matches('.tooltiptext, code.result, #mdbook-searchresults-header')) {
                    translateText(target);
                }
            }
        });
        for (const id of ['mdbook-content', 'mdbook-search-wrapper']) {
            const watched = document.getElementById(id);
            if (watched) {
                observer.observe(watched, {
                    subtree: true,
                    childList: true,
                    characterData: true,
                    attributes: true,
                    attributeFilter: ['title', 'aria-label'],
                });
            }
        }
    }

    // 2. Chapter navigation stays within the edition: the last Japanese
    //    chapter's "next" would be the first Chinese chapter, and the first
    //    Chinese chapter's "previous" the last Japanese one. asyncbook.css hides
    //    these links before this script runs; they are removed here too because
    //    book.js's arrow keys follow `.nav-chapters.next` / `.nav-chapters.previous`
    //    (the wide links) whether they are visible or not. The mobile links
    //    (`.mobile-nav-chapters`) carry the same rel attributes.
    function trimChapterNavigation() {
        for (const link of document.querySelectorAll('a[rel~="prev"], a[rel~="next"]')) {
            if (inFolder(link.href, other)) {
                link.remove();
            }
        }
    }

    // 3. The language picker: the same file in the other edition, at the
    //    section the reader is at. Both editions give every heading the same id.
    function addLanguageSwitch() {
        const buttons = document.querySelector('#mdbook-menu-bar .right-buttons');
        if (!buttons) {
            return;
        }
        const target = root + other + '/' + match[2]
            .replace(/(^|\/)README\.md$/, '$1index.md')
            .replace(/\.md$/, '.html');

        const link = document.createElement('a');
        link.id = 'asyncbook-lang-switch';
        link.lang = EDITIONS[other].lang;
        link.hreflang = EDITIONS[other].lang;
        link.textContent = words.switchText;
        link.title = words.switchTitle;
        buttons.prepend(link);

        const main = document.querySelector('main');
        // A heading counts as passed once its top is within this distance of
        // the viewport's top: mdBook's menu bar (--menu-bar-height, 50px) covers
        // that strip, and it puts anchored headings just below it
        // (`:target { scroll-margin-top }`).
        const margin = 80;

        function currentSection() {
            if (location.hash.length > 1) {
                return location.hash;
            }
            let id = '';
            if (main) {
                for (const h of main.querySelectorAll('h1[id], h2[id], h3[id], h4[id], h5[id], h6[id]')) {
                    if (h.getBoundingClientRect().top > margin) {
                        break;
                    }
                    id = h.id;
                }
            }
            return id ? '#' + encodeURIComponent(id) : '';
        }
        function update() {
            link.setAttribute('href', target + currentSection());
        }

        // Kept current so that open-in-new-tab and middle-click also land at
        // the right section; at most every 150 ms while scrolling.
        let scheduled = false;
        window.addEventListener('scroll', () => {
            if (!scheduled) {
                scheduled = true;
                setTimeout(() => {
                    scheduled = false;
                    update();
                }, 150);
            }
        }, { passive: true });
        window.addEventListener('hashchange', update);
        // Right before it is followed, in case a scroll is still pending.
        link.addEventListener('pointerdown', update);
        link.addEventListener('focus', update);
        update();
    }

    // 4. Code block buttons. book.js adds them (`pre > .buttons > button`) and
    //    wires them in closures; we answer their clicks first, from a
    //    capture-phase listener on window, and stop book.js from answering too.
    //    - The copy button (`button.clip-button`, handled by ClipboardJS through
    //      a click listener on document.body) copies only the visible lines
    //      (innerText). Ours copies the code element's whole text: hidden lines
    //      (`span.boring`, including mdBook's own `fn main` wrapper) are in
    //      textContent once theme/hidden-code.js has put them back in place,
    //      so the clipboard gets the complete program the eye button shows.
    //      Other blocks (```text, ```toml …) are copied as is.
    //    - The eye button's handler in book.js decides what to do by comparing
    //      its title with "Show hidden lines" / "Hide lines", which breaks once
    //      the title is translated, so we toggle it ourselves: the same class
    //      (`hide-boring` on the code) and icons (`template#fa-eye`,
    //      `template#fa-eye-slash`) book.js uses, after the hidden lines are
    //      in place.
    function takeOverCodeButtons() {
        for (const pre of document.querySelectorAll('pre')) {
            const code = pre.querySelector('code');
            const buttons = pre.querySelector(':scope > .buttons');
            if (!code || !buttons) {
                continue;
            }
            for (const button of buttons.querySelectorAll('button')) {
                // Still English here: localiseInterface() runs after this.
                const title = button.getAttribute('title');
                if (title === 'Show hidden lines' || title === 'Hide lines') {
                    button.classList.add('asyncbook-toggle-hidden');
                }
                if (button.classList.contains('clip-button') && code.querySelector('.boring')) {
                    button.title = words.copyProgram;
                    button.setAttribute('aria-label', words.copyProgram);
                }
            }
        }

        window.addEventListener('click', e => {
            const button = e.target instanceof Element && e.target.closest('pre > .buttons > button');
            if (!button) {
                return;
            }
            const code = button.closest('pre').querySelector('code');
            if (button.classList.contains('clip-button')) {
                e.stopImmediatePropagation();
                e.preventDefault();
                copyCode(button, code);
            } else if (button.classList.contains('asyncbook-toggle-hidden')) {
                e.stopImmediatePropagation();
                const show = code.classList.contains('hide-boring');
                const toggle = () => {
                    code.classList.toggle('hide-boring', !show);
                    const icon = document.getElementById(show ? 'fa-eye-slash' : 'fa-eye');
                    if (icon) {
                        button.innerHTML = icon.innerHTML;
                    }
                    const title = translate(show ? 'Hide lines' : 'Show hidden lines');
                    button.title = title;
                    button.setAttribute('aria-label', title);
                };
                if (show) {
                    hiddenCode.fill(code).then(toggle, err => console.error(err));
                } else {
                    toggle();
                }
            }
        }, true);
    }

    function copyCode(button, code) {
        // The hidden lines first (at once if they are in place already).
        hiddenCode.fill(code).then(() => copyText(button, code), err => {
            console.error(err);
            copyText(button, null);
        });
    }

    // Copies the block's whole text; a null code reports a clipboard error.
    function copyText(button, code) {
        let text = code?.textContent;
        // An editable block (ACE editor, `editable` class) keeps its text in the
        // editor, as book.js's playground_text() knows.
        if (code && window.ace && code.classList.contains('editable')) {
            text = window.ace.edit(code).getValue();
        }
        const done = ok => {
            // book.js's tooltip: the button's `i.tooltiptext` child, shown by the
            // `tooltipped` class; its own mouseout listener hides it again.
            const tip = button.querySelector('.tooltiptext');
            if (tip) {
                tip.textContent = translate(ok ? 'Copied!' : 'Clipboard error!');
                button.classList.add('tooltipped');
            }
        };
        if (text === undefined) {
            done(false);
            return;
        }
        const writeText = navigator.clipboard && window.isSecureContext
            ? navigator.clipboard.writeText(text)
            : Promise.reject(new Error('no async clipboard'));
        writeText.then(() => done(true), () => {
            done(copyWithTextarea(text));
            button.focus();
        });
    }

    // For pages served over plain http from another host (no async clipboard
    // API there) or when it is refused: the old way, from a selected textarea.
    function copyWithTextarea(text) {
        const area = document.createElement('textarea');
        area.value = text;
        area.setAttribute('readonly', '');
        area.style.cssText = 'position: fixed; top: 0; left: 0; opacity: 0;';
        document.body.append(area);
        area.select();
        let ok = false;
        try {
            ok = document.execCommand('copy');
        } catch {
            ok = false;
        }
        area.remove();
        return ok;
    }

    // 5. Search with Pagefind.
    //
    // The build writes a Pagefind bundle (one index per language; Pagefind picks
    // it from <html lang>) to <book>/pagefind/. We keep mdBook's search UI —
    // the toggle button, `#mdbook-searchbar`, `#mdbook-searchresults-outer`,
    // `#mdbook-searchresults-header`, `ul#mdbook-searchresults` and its
    // keyboard handling — and only answer the queries.
    //
    // searcher.js (loaded before us) has already wired itself up:
    //  - showSearch() loads mdBook's index by adding a script with id
    //    "mdbook-search-index", unless an element with that id exists, and
    //    init() runs from that script's onload. We add a placeholder with that
    //    id (or, if ?search= in the URL made it start loading already, drop its
    //    onload), so elasticlunr is never loaded and never writes results.
    //  - Its keyup listener on the search bar runs doSearch() and rewrites the
    //    URL; a capture-phase listener on window stops it (keyup events aimed at
    //    the search bar never reach it). We search on `input`, which also sees
    //    pasting and the end of an IME composition.
    //  - Its keydown listener on document opens the first result on Enter, moves
    //    through results with the arrows (`li.focus`) and closes on Escape. We
    //    keep the arrows and Escape (they work on our list), take Enter (so that
    //    a search still waiting for its debounce finishes first), and hide from
    //    it the keys that confirm an IME conversion.
    //  - On load and in window.onpopstate it reads ?search= (opens the bar,
    //    loads its index) and ?highlight= (marks words). We keep our query in
    //    ?pagefind-search= and our highlights in ?pagefind-highlight=, which it
    //    does not know, and replace its onpopstate with ours.
    // On file:// pages the browser refuses to import the ES module, and
    // mdBook's own index is switched off (book.toml): the search box says
    // that searching needs the book served over HTTP.
    const SEARCH_PARAM = 'pagefind-search';
    const HIGHLIGHT_PARAM = 'pagefind-highlight';

    function setUpSearch() {
        const bar = document.getElementById('mdbook-searchbar');
        const barOuter = document.getElementById('mdbook-searchbar-outer');
        const wrapper = document.getElementById('mdbook-search-wrapper');
        const outer = document.getElementById('mdbook-searchresults-outer');
        const header = document.getElementById('mdbook-searchresults-header');
        const list = document.getElementById('mdbook-searchresults');
        const toggle = document.getElementById('mdbook-search-toggle');
        if (!bar || !barOuter || !wrapper || !outer || !header || !list) {
            return;
        }
        const fromFile = location.protocol === 'file:';

        const loading = document.getElementById('mdbook-search-index');
        if (loading) {
            loading.onload = null;
        } else {
            const placeholder = document.createElement('meta');
            placeholder.id = 'mdbook-search-index';
            document.head.append(placeholder);
        }

        let pagefindModule = null;
        let failedLoads = 0;
        function pagefind() {
            if (fromFile) {
                return Promise.reject(new Error('opened from a file: no search index can be loaded'));
            }
            if (!pagefindModule) {
                const url = new URL(root + 'pagefind/pagefind.js', document.baseURI);
                // A failed import() is remembered by the browser for that URL;
                // a retry asks for another one (Pagefind finds its files from
                // the path and ignores the query).
                if (failedLoads > 0) {
                    url.searchParams.set('retry', String(failedLoads));
                }
                pagefindModule = import(url.href).then(async pf => {
                    // Excerpts start and end mid-sentence: say so.
                    await pf.options({ excerptEllipsis: '…' });
                    await pf.init();
                    return pf;
                }).catch(err => {
                    // Not cached: the next search loads it again.
                    pagefindModule = null;
                    failedLoads += 1;
                    throw err;
                });
            }
            return pagefindModule;
        }

        let shownTerm = null; // the term the list shows
        let generation = 0; // answers to older queries are dropped
        let debounce = 0;
        let running = Promise.resolve();

        function search(term) {
            clearTimeout(debounce);
            debounce = 0;
            if (term === shownTerm) {
                return running;
            }
            shownTerm = term;
            const mine = ++generation;
            setSearchParam(term);
            if (term === '') {
                list.replaceChildren();
                header.textContent = '';
                outer.classList.add('hidden');
                barOuter.classList.remove('searching');
                return (running = Promise.resolve());
            }
            barOuter.classList.add('searching');
            running = (async () => {
                try {
                    const pf = await pagefind();
                    const found = await pf.search(term);
                    const pages = await Promise.all(found.results.slice(0, 30).map(r => r.data()));
                    if (mine === generation) {
                        show(term, pages.filter(page => inFolder(page.url, edition)));
                    }
                } catch (err) {
                    if (mine === generation) {
                        console.warn('asyncbook: Pagefind search is unavailable:', err);
                        list.replaceChildren();
                        header.textContent = fromFile ? words.searchNeedsServer : words.searchUnavailable;
                        outer.classList.remove('hidden');
                        shownTerm = null; // try again on the next keystroke
                    }
                } finally {
                    if (mine === generation) {
                        barOuter.classList.remove('searching');
                    }
                }
            })();
            return running;
        }

        // One list item per matching section (Pagefind's sub_results, best
        // first, at most three per page), each `li > a` as mdBook's own results
        // are, linking to the section with the terms to highlight there.
        //
        // Pagefind splits Chinese and Japanese into dictionary words, and a
        // term it does not know is split too: 执行器 becomes 执行 + 器, and a
        // page about 计时器 matches on 器 alone. A reader searching CJK text
        // means the string itself, so when some results contain the query as
        // it was typed, only those are shown (pages with more occurrences
        // first), and the whole string is what is highlighted. Otherwise
        // Pagefind's own results and ranking stand.
        function show(term, pages) {
            const exactPages = pages
                .map((page, rank) => ({ page, rank, count: occurrences(page.content || '', term) }))
                .filter(p => p.count > 0)
                .sort((a, b) => b.count - a.count || a.rank - b.rank)
                .map(p => p.page);
            const exact = exactPages.length > 0;
            const items = [];
            for (const page of exact ? exactPages : pages) {
                let sections = page.sub_results && page.sub_results.length
                    ? [...page.sub_results]
                    : [{ title: page.meta.title, url: page.url, excerpt: page.excerpt, locations: page.locations }];
                sections.sort((a, b) => (b.locations || []).length - (a.locations || []).length);
                if (exact) {
                    const withTerm = sections.filter(sec => occurrences(textOf(sec.excerpt || ''), term) > 0);
                    sections = withTerm.length ? withTerm : sections.slice(0, 1);
                }
                for (const section of sections.slice(0, 3)) {
                    items.push(resultItem(term, page, section, items.length, exact));
                }
            }
            list.replaceChildren(...items);
            header.textContent = items.length
                ? words.resultCount(items.length, term)
                : words.noResults(term);
            outer.classList.remove('hidden');
        }

        // How often `term` occurs in `text`, ignoring case and runs of spaces.
        function occurrences(text, term) {
            const needle = normalise(term);
            if (!needle) {
                return 0;
            }
            const haystack = normalise(text);
            let count = 0;
            for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) {
                count++;
            }
            return count;
        }

        function normalise(text) {
            return text.replace(/\s+/g, ' ').trim().toLowerCase();
        }

        // The text of an excerpt, without its markup.
        function textOf(html) {
            const template = document.createElement('template');
            template.innerHTML = html;
            return template.content.textContent;
        }

        function resultItem(term, page, section, index, exact) {
            const li = document.createElement('li');
            const a = document.createElement('a');
            const url = new URL(section.url, document.baseURI);
            url.searchParams.set(HIGHLIGHT_PARAM, term);
            a.href = url.href;
            const metaTitle = page.meta && page.meta.title ? page.meta.title : '';
            const title = chapterTitle(page.url) || metaTitle || url.pathname;
            a.textContent = section.title && section.title !== metaTitle && section.title !== title
                ? `${title} » ${section.title}`
                : title;
            const teaser = document.createElement('span');
            teaser.className = 'teaser';
            teaser.id = 'asyncbook-teaser-' + index;
            teaser.setAttribute('aria-label', translate('Search Result Teaser'));
            const html = section.excerpt || page.excerpt || '';
            teaser.append(exact && occurrences(textOf(html), term) > 0 ? markExactly(textOf(html), term) : excerpt(html));
            a.setAttribute('aria-details', teaser.id);
            li.append(a, teaser);
            return li;
        }

        // The chapter's title as the sidebar (mdBook's toc.js) shows it. Pagefind
        // takes a page's title from its first <h1>, which may be the menu bar's
        // book title rather than the chapter's.
        function chapterTitle(pageUrl) {
            const path = new URL(pageUrl, document.baseURI).pathname;
            for (const a of document.querySelectorAll('#mdbook-sidebar a[href]:not([href^="#"])')) {
                if (new URL(a.href).pathname === path) {
                    return a.textContent.trim();
                }
            }
            return '';
        }

        // Pagefind's excerpts are HTML with the matches in <mark>. Keep only
        // the text and the marks, so nothing else in them can become markup;
        // neighbouring marks (the pieces of one split word) become one.
        function excerpt(html) {
            const template = document.createElement('template');
            template.innerHTML = html;
            const out = document.createDocumentFragment();
            for (const node of template.content.childNodes) {
                if (node.nodeName === 'MARK') {
                    if (out.lastChild && out.lastChild.nodeName === 'MARK') {
                        out.lastChild.textContent += node.textContent;
                    } else {
                        const mark = document.createElement('mark');
                        mark.textContent = node.textContent;
                        out.append(mark);
                    }
                } else {
                    out.append(node.textContent);
                }
            }
            return out;
        }

        // `text` with every occurrence of `term` (ignoring case) in <mark>.
        function markExactly(text, term) {
            const out = document.createDocumentFragment();
            const lower = text.toLowerCase();
            const needle = term.trim().toLowerCase();
            let from = 0;
            for (let at = lower.indexOf(needle); needle && at !== -1; at = lower.indexOf(needle, from)) {
                out.append(text.slice(from, at));
                const mark = document.createElement('mark');
                mark.textContent = text.slice(at, at + needle.length);
                out.append(mark);
                from = at + needle.length;
            }
            out.append(text.slice(from));
            return out;
        }

        // Like mdBook, the query is kept in the URL so that going back from a
        // result shows the results again; replaced, not pushed.
        function setSearchParam(term) {
            const url = new URL(location.href);
            if (term) {
                url.searchParams.set(SEARCH_PARAM, term);
            } else {
                url.searchParams.delete(SEARCH_PARAM);
            }
            if (url.href !== location.href) {
                history.replaceState(history.state, '', url.href);
            }
        }

        function schedule() {
            clearTimeout(debounce);
            debounce = setTimeout(() => search(bar.value.trim()), 120);
        }

        async function openResult() {
            await search(bar.value.trim());
            const link = list.querySelector('li.focus a') || list.querySelector('li a');
            if (link) {
                window.location.assign(link.href);
            }
        }

        window.addEventListener('keyup', e => {
            if (e.target === bar) {
                e.stopImmediatePropagation();
            }
        }, true);
        window.addEventListener('keydown', e => {
            if (e.key === 'Escape') {
                // searcher.js closes the bar; the query leaves the URL too.
                setTimeout(() => {
                    if (wrapper.classList.contains('hidden')) {
                        setSearchParam('');
                    }
                });
            }
            if (e.target !== bar) {
                return;
            }
            if (e.isComposing || e.keyCode === 229) {
                // Enter here confirms an IME conversion; it is not a query.
                e.stopImmediatePropagation();
            } else if (e.key === 'Enter' && !e.altKey && !e.ctrlKey && !e.metaKey && !e.shiftKey) {
                e.preventDefault();
                e.stopImmediatePropagation();
                openResult();
            }
        }, true);
        bar.addEventListener('input', e => {
            if (!e.isComposing) {
                schedule();
            }
        });
        bar.addEventListener('compositionend', schedule);
        // Start loading Pagefind (a small script, its wasm and the language's
        // index) as soon as the reader heads for the search bar.
        const warmUp = () => pagefind().catch(() => {});
        bar.addEventListener('focus', warmUp);
        if (toggle) {
            toggle.addEventListener('click', warmUp);
        }

        // The query in the URL, on load and on back/forward.
        function searchFromUrl() {
            const term = new URL(location.href).searchParams.get(SEARCH_PARAM);
            if (term) {
                wrapper.classList.remove('hidden');
                if (toggle) {
                    toggle.setAttribute('aria-expanded', 'true');
                }
                bar.value = term;
                search(term.trim());
            } else {
                wrapper.classList.add('hidden');
                if (toggle) {
                    toggle.setAttribute('aria-expanded', 'false');
                }
            }
        }
        window.onpopstate = searchFromUrl;
        if (new URL(location.href).searchParams.has(SEARCH_PARAM)) {
            searchFromUrl();
        } else if (!wrapper.classList.contains('hidden') && bar.value.trim() !== '') {
            // An mdBook ?search= link: searcher.js opened the bar and filled it in.
            search(bar.value.trim());
        }
    }

    // Marks the searched words on the page a result led to (?pagefind-highlight=).
    // searcher.js marks words from its own parameter, ?highlight=, when it
    // loads; using another one keeps the two from marking the same page twice.
    // mark.js (window.Mark, loaded by mdBook for its search) with options that
    // suit Japanese and Chinese: each term is matched as a whole substring,
    // since CJK text has no spaces between words.
    function highlightSearchTerms() {
        const url = new URL(location.href);
        const query = url.searchParams.get(HIGHLIGHT_PARAM);
        const main = document.querySelector('main');
        if (!query || !main || typeof Mark !== 'function') {
            return;
        }
        const terms = query.split(/\s+/).filter(Boolean);
        const marker = new Mark(main);
        marker.mark(terms, {
            separateWordSearch: false,
            accuracy: 'partially',
            diacritics: false,
            // Mermaid sources are rendered into SVG after load; marks would
            // break them. SVG text cannot hold <mark> (as searcher.js notes).
            exclude: ['.mermaid', '.mermaid *', 'svg', 'svg *'],
        });
        // As with mdBook's highlights, a click on one removes them all, and the
        // parameter, so they do not come back on reload.
        main.addEventListener('click', e => {
            if (e.target instanceof Element && e.target.closest('mark[data-markjs]')) {
                marker.unmark();
                const clean = new URL(location.href);
                clean.searchParams.delete(HIGHLIGHT_PARAM);
                history.replaceState(history.state, '', clean.href);
            }
        });
    }

    // The copy/eye buttons first: they look for mdBook's English titles.
    takeOverCodeButtons();
    localiseInterface();
    translateLaterStrings();
    trimChapterNavigation();
    addLanguageSwitch();
    setUpSearch();
    highlightSearchTerms();
})();

// mdBook 0.5.4 internals this file relies on:
//  - globals: `path_to_root` (index.hbs), `window.Mark` (mark.min.js),
//    `window.ace` (only for editable blocks); `window.asyncbookPath` is ours
//    (theme/head.hbs, from `{{ path }}`).
//  - menu bar: `#mdbook-menu-bar .right-buttons`, `#mdbook-theme-list button.theme`,
//    `#mdbook-search-toggle`, `#mdbook-help-popup` (`.mdbook-help-title`, `p`).
//  - navigation: `a[rel~=prev|next]` as `.nav-chapters` (read by book.js's
//    arrow keys) and `.mobile-nav-chapters`.
//  - code blocks: `pre > .buttons > button`, `button.clip-button` with its
//    `i.tooltiptext` and the `tooltipped` class, `span.boring`, the
//    `hide-boring` class, `template#fa-eye` / `#fa-eye-slash`, `code.result`.
//  - sidebar (toc.js): `#mdbook-sidebar a[href]` gives result titles; the CSS
//    uses `a.active`, `li.chapter-item`, `li.part-title`.
//  - search: `#mdbook-searchbar`, `#mdbook-searchbar-outer` (`searching`
//    class = spinner), `#mdbook-search-wrapper`, `#mdbook-searchresults-outer`,
//    `#mdbook-searchresults-header`, `#mdbook-searchresults` (`li.focus`), the
//    `#mdbook-search-index` id searcher.js checks before loading its index,
//    `window.onpopstate`, and its ?search= / ?highlight= parameters (ours are
//    ?pagefind-search= / ?pagefind-highlight=).
