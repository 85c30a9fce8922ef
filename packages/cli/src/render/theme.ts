import pc from 'picocolors';

/** Whether to colour and render: a terminal, and no `NO_COLOR` (https://no-color.org). */
export const richOutput = (stream: NodeJS.WriteStream = process.stdout, env = process.env) => !!stream.isTTY && !env.NO_COLOR && env.TERM !== 'dumb';

export type Colors = ReturnType<typeof pc.createColors>;

/** Colours that are no-ops when output is plain. */
export const colors = (enabled: boolean): Colors => pc.createColors(enabled);

type Paint = (text: string) => string;

/** An agent's colour from the `color` field of its file (Claude Code's names), the default for others. */
export function agentPaint(c: Colors, color: string | undefined): Paint {
  const byName: Record<string, Paint> = {
    red: c.red,
    green: c.green,
    yellow: c.yellow,
    blue: c.blue,
    magenta: c.magenta,
    purple: c.magenta,
    pink: c.magenta,
    cyan: c.cyan,
    orange: c.yellow,
    white: c.white,
    gray: c.gray,
    grey: c.gray,
  };
  const paint = color ? byName[color.toLowerCase()] : undefined;
  return (text) => c.bold((paint ?? c.cyan)(text));
}
