import type React from 'react';

/**
 * An inline confirmation for an action that cannot be taken back: what it does, then the action
 * and the way out, next to the button that asked for it.
 */
export function ConfirmPanel(props: {
  label: string;
  text: string;
  confirmLabel: string;
  cancelLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
  disabled?: boolean;
  className?: string;
  testId: string;
}): React.JSX.Element {
  return (
    <div
      className={props.className ?? 'card'}
      role="alertdialog"
      aria-label={props.label}
      data-testid={props.testId}
    >
      <p>{props.text}</p>
      <div className="row">
        <button type="button" className="danger" onClick={props.onConfirm} disabled={props.disabled}>
          {props.confirmLabel}
        </button>
        <button type="button" onClick={props.onCancel}>
          {props.cancelLabel}
        </button>
      </div>
    </div>
  );
}
