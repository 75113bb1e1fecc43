// The JSON editor of the core configuration page (CodeMirror 6): line numbers, JSON highlighting, a lint that marks
// where the text stops being JSON, history and the default keymap. Loaded only by this page through import(), so
// Vite puts CodeMirror in its own chunk and no other page downloads it. The editor lives in a shadow root: there
// CodeMirror's styles go into a constructed stylesheet (adoptedStyleSheets), which the panel's
// Content-Security-Policy (no inline <style>) allows; mounted on the document it would add a <style> element.
import { EditorState } from '@codemirror/state';
import { EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter } from '@codemirror/view';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { json } from '@codemirror/lang-json';
import { HighlightStyle, bracketMatching, syntaxHighlighting, indentOnInput } from '@codemirror/language';
import { linter, lintGutter, type Diagnostic } from '@codemirror/lint';
import { tags } from '@lezer/highlight';
import { jsonProblem } from './core-config-model';

// Colours from the page's CSS variables, so light and dark both keep their contrast.
const highlight = HighlightStyle.define([
  { tag: tags.propertyName, color: 'var(--cc-key)' },
  { tag: tags.string, color: 'var(--cc-string)' },
  { tag: [tags.number, tags.bool, tags.null], color: 'var(--cc-literal)' },
  { tag: [tags.brace, tags.squareBracket, tags.separator, tags.punctuation], color: 'var(--muted)' },
]);

const theme = EditorView.theme({
  '&': { color: 'var(--text)', backgroundColor: 'var(--surface)', fontSize: '13px', height: 'max(320px, 62vh)' },
  '&.cm-focused': { outline: '2px solid var(--accent)', outlineOffset: '-1px' },
  '.cm-scroller': { fontFamily: 'var(--mono)', lineHeight: '1.5' },
  '.cm-content': { fontFamily: 'var(--mono)', caretColor: 'var(--text)' },
  '.cm-gutters': {
    backgroundColor: 'var(--surface-2)',
    color: 'var(--muted)',
    borderInlineEnd: '1px solid var(--border)',
  },
  '.cm-activeLine': { backgroundColor: 'color-mix(in srgb, var(--accent) 7%, transparent)' },
  '.cm-activeLineGutter': {
    backgroundColor: 'color-mix(in srgb, var(--accent) 14%, transparent)',
    color: 'var(--text)',
  },
  '&.cm-focused .cm-cursor': { borderLeftColor: 'var(--text)' },
  '&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection': {
    backgroundColor: 'color-mix(in srgb, var(--accent) 30%, transparent) !important',
  },
  // CodeMirror's own lint marks are data: SVG images, which the panel's Content-Security-Policy refuses.
  '.cm-lintRange-error': {
    backgroundImage: 'none',
    textDecoration: 'underline wavy var(--danger)',
    textUnderlineOffset: '3px',
  },
  '.cm-lint-marker-error': {
    content: 'none',
    width: '.75em',
    height: '.75em',
    margin: '.15em',
    borderRadius: '50%',
    backgroundColor: 'var(--danger)',
  },
  '.cm-tooltip': { backgroundColor: 'var(--surface)', color: 'var(--text)', border: '1px solid var(--border)' },
});

export interface JsonEditor {
  /** Replaces the whole text (edits from the other tabs). */
  setText(text: string): void;
  focus(): void;
  destroy(): void;
}

/** Mounts the editor in `parent`; `onChange` gets the full text after every edit. */
export function mountEditor(
  parent: HTMLElement,
  opts: { text: string; label: string; onChange: (text: string) => void },
): JsonEditor {
  const lint = linter(
    (view): Diagnostic[] => {
      const p = jsonProblem(view.state.doc.toString());
      if (!p) return [];
      const to = Math.min(p.from + 1, view.state.doc.length);
      return [{ from: Math.min(p.from, to), to, severity: 'error', message: p.message }];
    },
    { delay: 250 },
  );
  const root = parent.shadowRoot ?? parent.attachShadow({ mode: 'open' });
  const view = new EditorView({
    parent: root,
    root,
    state: EditorState.create({
      doc: opts.text,
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        highlightActiveLine(),
        history(),
        indentOnInput(),
        bracketMatching(),
        json(),
        syntaxHighlighting(highlight),
        lintGutter(),
        lint,
        keymap.of([...defaultKeymap, ...historyKeymap]),
        theme,
        EditorView.lineWrapping,
        EditorView.contentAttributes.of({
          'aria-label': opts.label,
          'aria-multiline': 'true',
          // axe counts the scroller as keyboard-reachable only through a tabindex on the content.
          tabindex: '0',
          spellcheck: 'false',
          autocorrect: 'off',
          autocapitalize: 'off',
        }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) opts.onChange(u.state.doc.toString());
        }),
      ],
    }),
  });
  return {
    setText(text) {
      if (text === view.state.doc.toString()) return;
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    },
    focus: () => view.focus(),
    destroy: () => view.destroy(),
  };
}
