/**
 * A business or validation failure with a message for the operator. Handlers turn it into the envelope
 * `{success: false, msg}` with HTTP 200 (what existing clients of this API expect).
 */
export class DomainError extends Error {
  constructor(
    message: string,
    readonly code: string = 'invalid',
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const fail = (message: string, code?: string): never => {
  throw new DomainError(message, code);
};
