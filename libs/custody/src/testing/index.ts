export { describeKeyCustodyContract } from './key-custody.contract';
