/** Permits, dispatches and outcomes of one task drawn on a time axis (SVG, with a text list for screen readers). */
import React from 'react';
import type { TimelineEntry } from '../../../src-shared/ipc/views.js';
import { useStateLabel, useT } from '../i18n/use-t.js';

const LANES: TimelineEntry['kind'][] = ['control', 'approval', 'permit', 'dispatch', 'outcome', 'refusal'];

export function TaskTimeline({ entries }: { entries: TimelineEntry[] }): React.JSX.Element {
  const t = useT();
  const stateLabel = useStateLabel();
  // Outcomes are shown with the state label of the current language; other labels come from the Hub's audit.
  const text = (e: TimelineEntry) => (e.kind === 'outcome' && e.state ? stateLabel(e.state) : e.label);
  if (entries.length === 0) return <p className="muted">{t('task.timelineEmpty')}</p>;
  const times = entries.map((e) => Date.parse(e.at));
  const min = Math.min(...times);
  const max = Math.max(...times);
  const span = Math.max(1, max - min);
  const width = 600;
  const laneH = 22;
  const x = (at: string) => 90 + ((Date.parse(at) - min) / span) * (width - 110);
  return (
    <figure className="timeline">
      <svg viewBox={`0 0 ${width} ${LANES.length * laneH + 20}`} role="img" aria-label={t('task.timeline')}>
        {LANES.map((lane, i) => (
          <g key={lane}>
            <text x={4} y={i * laneH + 15} className="lane-label">
              {t(`lane.${lane}`)}
            </text>
            <line x1={90} x2={width - 10} y1={i * laneH + 11} y2={i * laneH + 11} className="lane-line" />
          </g>
        ))}
        {entries.map((e, i) => (
          <circle key={i} cx={x(e.at)} cy={LANES.indexOf(e.kind) * laneH + 11} r={5} className={`dot dot-${e.kind}`}>
            <title>{`${e.at} ${text(e)}${e.invocation_id ? ` ${e.invocation_id}` : ''}`}</title>
          </circle>
        ))}
        <text x={90} y={LANES.length * laneH + 16} className="axis">
          {new Date(min).toLocaleTimeString()}
        </text>
        <text x={width - 10} y={LANES.length * laneH + 16} className="axis" textAnchor="end">
          {new Date(max).toLocaleTimeString()}
        </text>
      </svg>
      <figcaption>
        <ol className="timeline-list">
          {entries.map((e, i) => (
            <li key={i}>
              <time dateTime={e.at}>{new Date(e.at).toLocaleTimeString()}</time> · {t(`lane.${e.kind}`)} · {text(e)}
              {e.tool && ` · ${e.tool}`}
              {e.invocation_id && (
                <>
                  {' '}
                  · <code>{e.invocation_id}</code>
                </>
              )}
            </li>
          ))}
        </ol>
      </figcaption>
    </figure>
  );
}
