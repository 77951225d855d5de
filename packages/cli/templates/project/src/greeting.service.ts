import { Injectable } from '@gantry/core';

/** Makes greetings. The tool and the resource get it through their constructors. */
@Injectable()
export class GreetingService {
  greet(name: string): string {
    return `Hello, ${name}!`;
  }
}
