import { GantryError, LocalErrorCode } from '@gantry/protocol';

/** Bootstrap failures of the container; each message says what to change. */
export function unknownProviderError(message: string): GantryError {
  return new GantryError(LocalErrorCode.UnknownProvider, message);
}

export function circularDependencyError(message: string): GantryError {
  return new GantryError(LocalErrorCode.CircularDependency, message);
}

export function missingMetadataError(message: string): GantryError {
  return new GantryError(LocalErrorCode.MissingMetadata, message);
}

export function bootstrapError(message: string, cause?: unknown): GantryError {
  return new GantryError(LocalErrorCode.Bootstrap, message, cause === undefined ? undefined : { cause });
}
