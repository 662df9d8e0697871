/** How the clinic names a doctor to patients and agents: its display name, else “Dott. <first> <last>”. */
export function doctorDisplayName(row: { display_name: string | null; first_name: string; last_name: string }): string {
  return row.display_name ?? `Dott. ${row.first_name} ${row.last_name}`;
}
