import { Description } from '@gantry/core';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';

export class CreateNote {
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  @Description('Short title of the note')
  title!: string;

  @IsString()
  @MaxLength(100_000)
  @Description('The note itself, in Markdown')
  body!: string;

  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  @Matches(/^[a-z0-9-]+$/, { each: true })
  @ArrayMaxSize(20)
  @Description('Lower-case tags such as "work" or "ideas"')
  tags?: string[];
}

export class NoteId {
  @IsString()
  @Matches(/^[0-9a-f]{8}$/)
  @Description('The id returned by create_note or search_notes')
  id!: string;
}

export class SearchNotes {
  @IsString()
  @Description('Words that must all appear in the title, body or tags; empty lists every note')
  query!: string;

  @IsOptional()
  @IsString()
  @Description('Only notes with this tag')
  tag?: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  @Description('At most this many notes, newest first')
  limit = 10;
}

export class NoteSummary {
  @IsString() id!: string;
  @IsString() title!: string;
  @IsArray() @IsString({ each: true }) tags!: string[];
  @IsIn(['todo', 'doing', 'done']) @Description('Where the note stands on the board') status!: string;
  @IsString() @Description('ISO 8601 time of the last change') updatedAt!: string;
}

export class SearchResult {
  @IsInt() @Min(0) count!: number;

  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => NoteSummary)
  notes!: NoteSummary[];
}

export class MoveNote {
  @IsString()
  @Matches(/^[0-9a-f]{8}$/)
  @Description('The note to move')
  id!: string;

  @IsIn(['todo', 'doing', 'done'])
  @Description('The column to move it to: todo, doing or done')
  status!: 'todo' | 'doing' | 'done';
}

export class SummarizeNote {
  @IsString()
  @Description('The id of the note to summarize')
  id!: string;

  @IsOptional()
  @IsIn(['bullets', 'paragraph', 'tweet'])
  @Description('How the summary should read: bullets, paragraph or tweet')
  style = 'bullets';
}
