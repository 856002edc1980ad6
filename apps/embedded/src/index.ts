export { startEmbeddedSystem, type EmbeddedOptions, type EmbeddedSystem } from './start-embedded';
