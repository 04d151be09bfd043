// Regex source that matches `s` literally, for the strategies that build a pattern from word lists.
export const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
