/**
 * Following a log's end: new output scrolls into view while the operator is at the end; once they
 * scroll up to read, it stays where they are (and says new output arrived) until they are back at
 * the end. Measured in pixels from the end so a rounding scroll position still counts as "there".
 */
export const FOLLOW_SLACK_PX = 40;

export interface ScrollBox {
  scrollTop: number;
  scrollHeight: number;
  clientHeight: number;
}

export function atEnd(el: ScrollBox): boolean {
  return el.scrollHeight - el.scrollTop - el.clientHeight <= FOLLOW_SLACK_PX;
}

export function scrollToEnd(el: ScrollBox): void {
  el.scrollTop = el.scrollHeight;
}
