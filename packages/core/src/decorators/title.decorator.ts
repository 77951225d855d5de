import { TITLE_METADATA } from '../schema/schema-keys';
import { decoratorError, memberName } from './decorator-error';

/**
 * A display title for a DTO property: `title` in the JSON Schema of a tool's input and in the
 * `requestedSchema` of an elicitation form, where clients label the field with it. It only
 * records the text; readers decide its use.
 *
 * @example
 * ```ts
 * class SignupForm {
 *   @IsEmail() @Title('Email address') @Description('We send the confirmation here')
 *   email!: string;
 * }
 * ```
 */
export function Title(text: string): PropertyDecorator {
  if (typeof text !== 'string' || text.trim() === '') {
    const got = typeof text === 'string' ? 'an empty string' : typeof text;
    throw decoratorError(`@Title() needs a non-empty string, e.g. @Title('Email address'); got ${got}`);
  }
  return (target: object, propertyKey: string | symbol | undefined) => {
    const where = memberName(target, propertyKey);
    // Under experimentalDecorators a class decorator is called with the class alone.
    if (propertyKey === undefined) {
      throw decoratorError(`@Title() on ${where}: it titles a property; put it on one`);
    }
    if (Reflect.hasOwnMetadata(TITLE_METADATA, target, propertyKey)) {
      throw decoratorError(`@Title() on ${where}: it already has a title; keep one`);
    }
    Reflect.defineMetadata(TITLE_METADATA, text, target, propertyKey);
  };
}
