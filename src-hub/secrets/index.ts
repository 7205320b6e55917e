/** The Hub's secrets at rest: sealing, the secret key's sources, the start-up check and rotation. */
export {
  isSealed,
  LOCKED_SECRET_BOX,
  parseSecretKey,
  SECRET_CONTEXTS,
  secretBox,
  SecretUnreadableError,
  type SecretBox,
  type SecretKey,
} from './sealed.js';
export {
  resolveSecretKey,
  SecretKeyMissingError,
  SECRET_KEY_ENV,
  SECRET_KEY_FILE_ENV,
  type ResolvedSecretKey,
} from './key-source.js';
export { prepareStoreSecrets, SecretKeyMismatchError, type OnKeyMismatch } from './store-secrets.js';
export { rotateSecretKey, RotationRefusedError } from './rotate.js';
