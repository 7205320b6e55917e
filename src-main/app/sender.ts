/**
 * Which IPC senders are trusted: only the main frame of our own window, showing our own origin.
 * A subframe, another window, or a page that navigated elsewhere is refused.
 */
export const APP_SCHEME = 'app';
export const APP_HOST = 'bailing';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;

export interface FrameLike {
  url: string;
  parent: unknown;
}
export interface SenderEventLike {
  senderFrame: FrameLike | null;
  sender: { id: number };
}

export function isTrustedSender(
  event: SenderEventLike,
  windowWebContentsId: number | null,
  origin: string = APP_ORIGIN,
): boolean {
  if (windowWebContentsId === null || event.sender.id !== windowWebContentsId) return false;
  const frame = event.senderFrame;
  if (!frame || frame.parent !== null) return false;
  let url: URL;
  try {
    url = new URL(frame.url);
  } catch {
    return false;
  }
  return `${url.protocol}//${url.host}` === origin;
}
