/** Types of the CommonJS language libraries the tokenizer uses (they ship none). */
declare module 'wink-porter2-stemmer' {
  /** The Porter2 (Snowball English) stem of a lowercase word. */
  const stem: (word: string) => string;
  export default stem;
}

declare module 'wink-lemmatizer' {
  /** WordNet-based lemmas: irregular forms from WordNet's exception lists, regular ones by rule. */
  const lemmatizer: { noun(word: string): string; verb(word: string): string; adjective(word: string): string };
  export default lemmatizer;
}
