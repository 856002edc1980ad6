export { startAcme } from './start-acme';
