/**
 * Permits, dispatches and outcomes of one task drawn on a time axis (SVG, with a text list for
 * screen readers). Every word is in the current language: lane labels, each event's text (see
 * logic/timeline-text.ts), the tooltips, the times and the figure's accessible description.
 */
import React from 'react';
import type { TaskView } from '../../../src-shared/hub-api.js';
import type { TimelineEntry } from '../../../src-shared/ipc/views.js';
import { useStateLabel, useT } from '../i18n/use-t.js';
import { timelineText } from '../logic/timeline-text.js';
import { useApp } from '../store/app.js';
import { useTaskSystems } from '../store/authorization-names.js';
import { KindBadge } from './KindBadge.js';

const LANES: TimelineEntry['kind'][] = ['control', 'approval', 'permit', 'dispatch', 'outcome', 'refusal'];

export function TaskTimeline({
  entries,
  systems,
}: {
  entries: TimelineEntry[];
  /** The task's systems as the Hub served them (a retired system's kind too). */
  systems?: TaskView['systems'];
}): React.JSX.Element {
  const t = useT();
  const systemOf = useTaskSystems({ systems });
  const stateLabel = useStateLabel();
  const lang = useApp((s) => s.lang);
  const locale = lang === 'zh' ? 'zh-CN' : undefined;
  const time = (ms: number) => new Date(ms).toLocaleTimeString(locale);
  const text = (e: TimelineEntry) => timelineText(e, t, stateLabel);
  if (entries.length === 0) return <p className="muted">{t('task.timelineEmpty')}</p>;
  const times = entries.map((e) => Date.parse(e.at));
  const min = Math.min(...times);
  const max = Math.max(...times);
  const span = Math.max(1, max - min);
  const width = 600;
  const laneH = 22;
  const x = (at: string) => 90 + ((Date.parse(at) - min) / span) * (width - 110);
  const lanes = LANES.map((lane) => t(`lane.${lane}`));
  const separator = lang === 'zh' ? '、' : ', ';
  return (
    <figure className="timeline">
      <svg
        viewBox={`0 0 ${width} ${LANES.length * laneH + 20}`}
        role="img"
        aria-label={t('timeline.aria', {
          n: entries.length,
          from: time(min),
          to: time(max),
          lanes: lanes.join(separator),
        })}
        data-testid="timeline-svg"
      >
        {LANES.map((lane, i) => (
          <g key={lane}>
            <text x={4} y={i * laneH + 15} className="lane-label">
              {lanes[i]}
            </text>
            <line x1={90} x2={width - 10} y1={i * laneH + 11} y2={i * laneH + 11} className="lane-line" />
          </g>
        ))}
        {entries.map((e, i) => (
          <circle
            key={i}
            cx={x(e.at)}
            cy={LANES.indexOf(e.kind) * laneH + 11}
            r={5}
            className={`dot dot-${e.kind}`}
          >
            <title>
              {[time(Date.parse(e.at)), t(`lane.${e.kind}`), text(e), e.tool, e.invocation_id]
                .filter(Boolean)
                .join(' · ')}
            </title>
          </circle>
        ))}
        <text x={90} y={LANES.length * laneH + 16} className="axis">
          {time(min)}
        </text>
        <text x={width - 10} y={LANES.length * laneH + 16} className="axis" textAnchor="end">
          {time(max)}
        </text>
      </svg>
      <figcaption>
        <ol className="timeline-list" aria-label={t('timeline.list')}>
          {entries.map((e, i) => (
            <li key={i}>
              <time dateTime={e.at}>{time(Date.parse(e.at))}</time> · {t(`lane.${e.kind}`)} · {text(e)}
              {e.tool && ` · ${e.tool}`}
              {e.authorization_ref && (
                <>
                  {' '}
                  <KindBadge kind={systemOf(e.authorization_ref).kind} />
                </>
              )}
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
