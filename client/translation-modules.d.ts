/** Parts of the translation files, cut at build time (client/translation-parts.ts, vite.config.ts). */
declare module 'virtual:translations/loaders' {
  const loaders: Record<import('../shared/languages.ts').Language, import('./translation-parts.ts').LanguageLoaders>;
  export default loaders;
}

/** The sidebar's icons, generated at build (client/shell/nav-icon-names.ts, vite.config.ts). */
declare module 'virtual:nav-icons.css';
