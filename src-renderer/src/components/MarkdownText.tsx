/**
 * A model's reply rendered as Markdown (GitHub flavour: tables, lists, strikethrough) with a
 * sanitiser: raw HTML in the text is never rendered (react-markdown escapes it, and rehype-sanitize
 * strips anything outside its safe schema); links open nothing in this window.
 */
import React from 'react';
import ReactMarkdown from 'react-markdown';
import rehypeSanitize from 'rehype-sanitize';
import remarkGfm from 'remark-gfm';

const components = {
  // A link is shown, never followed inside the app window (the main process also blocks navigation).
  a: ({ children, href }: { children?: React.ReactNode; href?: string }) => (
    <a href={href} target="_blank" rel="noopener noreferrer nofollow">
      {children}
    </a>
  ),
};

export function MarkdownText({ text }: { text: string }): React.JSX.Element {
  return (
    <div className="markdown" data-testid="markdown">
      <ReactMarkdown remarkPlugins={[remarkGfm]} rehypePlugins={[rehypeSanitize]} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
}
