/** Parts of the translation files, cut at build time (client/translation-parts.ts, vite.config.ts). */
declare module 'virtual:translations/loaders' {
  const loaders: Record<import('../shared/languages.ts').Language, import('./translation-parts.ts').LanguageLoaders>;
  export default loaders;
}

/** The address of the icon sprite, generated at build (client/components/sprite-icon-names.ts, vite.config.ts). */
declare module 'virtual:icon-sprite' {
  const url: string;
  export default url;
}
