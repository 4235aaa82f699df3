/**
 * Refuses an options object that holds a key `caller` does not accept, so that a misspelt
 * option (`maxReadByte`) fails at construction rather than being silently ignored. Every
 * package that checks its options' names does it with this, so that the rule and the
 * wording are one: `withSpill does not know the option "bogus"; the options are backend, …`.
 *
 * @param caller - The function the user called, as the message names it.
 * @param options - The options as given; a key whose value is `undefined` counts too.
 * @param accepted - Every option `caller` accepts, in the order the message lists them.
 * @throws TypeError naming `caller`, the unknown option, and the options it accepts.
 *
 * @example
 * checkOptionNames('spillTools', options, ['backend', 'maxReadBytes', 'defaultMaxMatches']);
 */
export function checkOptionNames(caller: string, options: object, accepted: readonly string[]): void {
  for (const key of Object.keys(options)) {
    if (!accepted.includes(key)) {
      throw new TypeError(`${caller} does not know the option ${JSON.stringify(key)}; the options are ${accepted.join(', ')}.`);
    }
  }
}
