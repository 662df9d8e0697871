/** The clinic-local reading of an instant as Intl writes it, for tests to compare the API's readings with (not the code's own helper). */
const formatters = new Map<string, [Intl.DateTimeFormat, Intl.DateTimeFormat]>();

function formattersOf(timeZone: string): [Intl.DateTimeFormat, Intl.DateTimeFormat] {
  let f = formatters.get(timeZone);
  if (!f) {
    f = [
      new Intl.DateTimeFormat('en-GB', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' }),
      new Intl.DateTimeFormat('it-IT', { timeZone, weekday: 'long', day: 'numeric', month: 'long' }),
    ];
    formatters.set(timeZone, f);
  }
  return f;
}

export function intlReading(iso: string | Date, timeZone = 'Europe/Rome'): { localDate: string; localTime: string; label: string } {
  const at = new Date(iso);
  const [numbers, words] = formattersOf(timeZone);
  const parts = Object.fromEntries(numbers.formatToParts(at).map((p) => [p.type, p.value]));
  const hour = Number(parts.hour);
  return {
    localDate: `${parts.year}-${parts.month}-${parts.day}`,
    localTime: `${parts.hour}:${parts.minute}`,
    label: `${words.format(at)} ${hour === 1 ? 'all’' : 'alle '}${hour}:${parts.minute}`,
  };
}
